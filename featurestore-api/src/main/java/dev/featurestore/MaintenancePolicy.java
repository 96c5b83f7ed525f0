package dev.featurestore;


import java.time.Duration;

/**
 * Thresholds that decide which maintenance operations a {@link MaintenancePlan} runs, and the
 * settings they run with. Build with {@link #builder()}; derive with {@link #toBuilder()}.
 *
 * <pre>{@code
 * MaintenancePolicy policy = MaintenancePolicy.builder()
 *     .compactWhenSmallFilesAtLeast(20)
 *     .expireWhenSnapshotsAtLeast(100).retainLastSnapshots(20).maxSnapshotAge(Duration.ofDays(7))
 *     .build();
 * }</pre>
 */
public final class MaintenancePolicy {
  private final int smallFileThreshold;
  private final int deleteFileThreshold;
  private final int snapshotThreshold;
  private final int manifestThreshold;
  private final int retainLastSnapshots;
  private final Duration maxSnapshotAge;
  private final boolean removeOrphans;
  private final Duration orphanSafetyWindow;

  private MaintenancePolicy(Builder b) {
    this.smallFileThreshold = b.smallFileThreshold;
    this.deleteFileThreshold = b.deleteFileThreshold;
    this.snapshotThreshold = b.snapshotThreshold;
    this.manifestThreshold = b.manifestThreshold;
    this.retainLastSnapshots = b.retainLastSnapshots;
    this.maxSnapshotAge = b.maxSnapshotAge;
    this.removeOrphans = b.removeOrphans;
    this.orphanSafetyWindow = b.orphanSafetyWindow;
  }

  /** The defaults: compact at 10 small files or 10 delete files, expire at 50 snapshots keeping 10 and 5 days, rewrite manifests at 50, remove orphans older than 3 hours. */
  public static MaintenancePolicy defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.smallFileThreshold = smallFileThreshold;
    b.deleteFileThreshold = deleteFileThreshold;
    b.snapshotThreshold = snapshotThreshold;
    b.manifestThreshold = manifestThreshold;
    b.retainLastSnapshots = retainLastSnapshots;
    b.maxSnapshotAge = maxSnapshotAge;
    b.removeOrphans = removeOrphans;
    b.orphanSafetyWindow = orphanSafetyWindow;
    return b;
  }

  /** Compaction runs when the current snapshot has at least this many small data files. */
  public int smallFileThreshold() {
    return smallFileThreshold;
  }

  /** Compaction runs when the current snapshot has at least this many delete files. */
  public int deleteFileThreshold() {
    return deleteFileThreshold;
  }

  /** Expiry runs when the table has at least this many snapshots. */
  public int snapshotThreshold() {
    return snapshotThreshold;
  }

  /** Manifest rewrite runs when the current snapshot has at least this many data manifests. */
  public int manifestThreshold() {
    return manifestThreshold;
  }

  /** Expiry keeps at least this many snapshots of {@code main}. */
  public int retainLastSnapshots() {
    return retainLastSnapshots;
  }

  /** Expiry removes snapshots older than this (beyond the ones kept). */
  public Duration maxSnapshotAge() {
    return maxSnapshotAge;
  }

  /** Whether orphan-file removal runs (last, after expiry). */
  public boolean removeOrphans() {
    return removeOrphans;
  }

  /** The orphan safety window (at least {@link OrphanFileRemoval#MINIMUM_SAFETY_WINDOW}). */
  public Duration orphanSafetyWindow() {
    return orphanSafetyWindow;
  }

  @Override
  public String toString() {
    return "MaintenancePolicy{smallFiles>=" + smallFileThreshold + ", deleteFiles>=" + deleteFileThreshold
        + ", snapshots>=" + snapshotThreshold + ", manifests>=" + manifestThreshold
        + ", retainLast=" + retainLastSnapshots + ", maxSnapshotAge=" + maxSnapshotAge
        + ", removeOrphans=" + removeOrphans + ", orphanSafetyWindow=" + orphanSafetyWindow + "}";
  }

  /** Builds a {@link MaintenancePolicy}; each setter checks its value. Not thread-safe. */
  public static final class Builder {
    private int smallFileThreshold = 10;
    private int deleteFileThreshold = 10;
    private int snapshotThreshold = 50;
    private int manifestThreshold = 50;
    private int retainLastSnapshots = 10;
    private Duration maxSnapshotAge = Duration.ofDays(5);
    private boolean removeOrphans = true;
    private Duration orphanSafetyWindow = OrphanFileRemoval.DEFAULT_SAFETY_WINDOW;

    private Builder() {}

    public Builder compactWhenSmallFilesAtLeast(int count) {
      this.smallFileThreshold = atLeastOne("small-file threshold", count);
      return this;
    }

    public Builder compactWhenDeleteFilesAtLeast(int count) {
      this.deleteFileThreshold = atLeastOne("delete-file threshold", count);
      return this;
    }

    public Builder expireWhenSnapshotsAtLeast(int count) {
      this.snapshotThreshold = atLeastOne("snapshot threshold", count);
      return this;
    }

    public Builder rewriteManifestsWhenAtLeast(int count) {
      this.manifestThreshold = atLeastOne("manifest threshold", count);
      return this;
    }

    public Builder retainLastSnapshots(int count) {
      this.retainLastSnapshots = atLeastOne("snapshots to retain", count);
      return this;
    }

    public Builder maxSnapshotAge(Duration age) {
      InvalidArgumentException.requireNonNull(age, "set max snapshot age", "age");
      if (age.isNegative()) {
        throw new InvalidArgumentException("Cannot set max snapshot age: negative: " + age);
      }
      this.maxSnapshotAge = age;
      return this;
    }

    public Builder removeOrphans(boolean removeOrphans) {
      this.removeOrphans = removeOrphans;
      return this;
    }

    public Builder orphanSafetyWindow(Duration window) {
      InvalidArgumentException.requireNonNull(window, "set orphan safety window", "window");
      if (window.compareTo(OrphanFileRemoval.MINIMUM_SAFETY_WINDOW) < 0) {
        throw new InvalidArgumentException("Cannot set orphan safety window: below the minimum of "
            + OrphanFileRemoval.MINIMUM_SAFETY_WINDOW + ": " + window);
      }
      this.orphanSafetyWindow = window;
      return this;
    }

    public MaintenancePolicy build() {
      return new MaintenancePolicy(this);
    }

    private static int atLeastOne(String what, int count) {
      if (count < 1) {
        throw new InvalidArgumentException("Cannot set " + what + ": must be at least 1: " + count);
      }
      return count;
    }
  }
}
