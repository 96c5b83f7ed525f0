package dev.featurestore;


import java.util.List;
import java.util.Optional;

/**
 * What {@link FeatureStore#doctor(FeatureStoreConfig)} found: one {@link Check} per setting and
 * per capability, in the order they ran. A check that could not run because an earlier one
 * failed (for example every bucket check after an unreachable endpoint) is left out; the failing
 * check names the cause. Holds no credentials.
 *
 * <pre>{@code
 * DoctorReport report = FeatureStore.doctor(config);
 * if (!report.ok()) {
 *   report.failures().forEach(c -> System.err.println(c.name() + ": " + c.detail() + " -> " + c.fix()));
 * }
 * }</pre>
 *
 * @param checks the checks, in the order they ran
 */
public record DoctorReport(List<Check> checks) {
  public DoctorReport {
    checks = List.copyOf(InvalidArgumentException.requireNonNull(checks, "create doctor report", "checks"));
  }

  /** The outcome of one check. */
  public enum Status { OK, WARN, FAIL }

  /**
   * One check.
   *
   * @param name what was checked, e.g. {@code setting B2_APPLICATION_KEY} or {@code bucket write}
   * @param status the outcome
   * @param detail what was found (never a credential)
   * @param fix what to change; empty when the check passed
   */
  public record Check(String name, Status status, String detail, String fix) {
    public Check {
      InvalidArgumentException.requireNonNull(name, "create doctor check", "name");
      InvalidArgumentException.requireNonNull(status, "create doctor check", "status");
      InvalidArgumentException.requireNonNull(detail, "create doctor check", "detail");
      InvalidArgumentException.requireNonNull(fix, "create doctor check", "fix");
    }

    public static Check ok(String name, String detail) {
      return new Check(name, Status.OK, detail, "");
    }

    public static Check warn(String name, String detail, String fix) {
      return new Check(name, Status.WARN, detail, fix);
    }

    public static Check fail(String name, String detail, String fix) {
      return new Check(name, Status.FAIL, detail, fix);
    }
  }

  /** True when no check failed (warnings allowed). */
  public boolean ok() {
    return checks.stream().noneMatch(c -> c.status() == Status.FAIL);
  }

  /** The failed checks. */
  public List<Check> failures() {
    return checks.stream().filter(c -> c.status() == Status.FAIL).toList();
  }

  /** The check with this name, if it ran. */
  public Optional<Check> check(String name) {
    return checks.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** One line per check: {@code [FAIL] name: detail -> fix}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Check c : checks) {
      sb.append('[').append(c.status()).append("] ").append(c.name()).append(": ").append(c.detail());
      if (!c.fix().isEmpty()) {
        sb.append(" -> ").append(c.fix());
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
