package dev.featurestore.benchmarks;

import java.util.Locale;

/**
 * The answer of the SQL benchmarks' GROUP BY ({@code entity_id, count(*), sum(feature_a),
 * max(feature_b)}), reduced to a few numbers that two engines must agree on: the number of groups,
 * the total count, an order-independent fingerprint of every group's key, count and max (exact),
 * and the total of the per-group sums (floating point: summation order differs between engines
 * and threads, so it is compared with a tolerance).
 */
final class GroupAnswer {
  private long groups;
  private long rows;
  private long fingerprint;
  private double sum;
  private double magnitude;

  /** One result row; {@code a} and {@code b} are null when every value in the group was null. */
  void add(long entity, long count, Double a, Double b) {
    groups++;
    rows += count;
    long h = entity * 0x9E3779B97F4A7C15L + count;
    h ^= b == null ? 0x5bd1e995L : Double.doubleToLongBits(b);
    h *= 0xBF58476D1CE4E5B9L;
    fingerprint += h ^ (h >>> 31);
    if (a != null) {
      sum += a;
      magnitude += Math.abs(a);
    }
  }

  long groups() {
    return groups;
  }

  long rows() {
    return rows;
  }

  /** Throws if {@code other} is a different answer. */
  void checkSame(String benchmark, GroupAnswer other) {
    double tolerance = 1e-9 * Math.max(1.0, Math.max(magnitude, other.magnitude));
    if (groups != other.groups || rows != other.rows || fingerprint != other.fingerprint
        || Math.abs(sum - other.sum) > tolerance) {
      throw new IllegalStateException("Cannot compare " + benchmark + ": ours and the baseline answered differently: "
          + this + " vs " + other);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "groups=%d rows=%d fingerprint=%016x sum(feature_a)=%.6f", groups, rows,
        fingerprint, sum);
  }
}
