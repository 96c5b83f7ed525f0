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
  /** The default of {@link #deletedRowsThreshold()}. */
  public static final double DEFAULT_DELETED_ROWS_THRESHOLD = 0.1;
  /** The default of {@link #compactionSizeRatio()}. */
  public static final double DEFAULT_COMPACTION_SIZE_RATIO = 2.0;
  /** The default of {@link #compactionTierFiles()}. */
  public static final int DEFAULT_COMPACTION_TIER_FILES = 4;

  private final int smallFileThreshold;
  private final int deleteFileThreshold;
  private final double deletedRowsThreshold;
  private final double compactionSizeRatio;
  private final int compactionTierFiles;
  private final int snapshotThreshold;
  private final int manifestThreshold;
  private final int retainLastSnapshots;
  private final Duration maxSnapshotAge;
  private final int maxSnapshots;
  private final boolean removeOrphans;
  private final Duration orphanSafetyWindow;
  private final Duration checkEvery;
  private final Duration removeOrphansEvery;
  private final int metadataVersionsToKeep;
  private final Duration leaseDuration;

  private MaintenancePolicy(Builder b) {
    this.smallFileThreshold = b.smallFileThreshold;
    this.deleteFileThreshold = b.deleteFileThreshold;
    this.deletedRowsThreshold = b.deletedRowsThreshold;
    this.compactionSizeRatio = b.compactionSizeRatio;
    this.compactionTierFiles = b.compactionTierFiles;
    this.snapshotThreshold = b.snapshotThreshold;
    this.manifestThreshold = b.manifestThreshold;
    this.retainLastSnapshots = b.retainLastSnapshots;
    this.maxSnapshotAge = b.maxSnapshotAge;
    this.maxSnapshots = b.maxSnapshots;
    this.removeOrphans = b.removeOrphans;
    this.orphanSafetyWindow = b.orphanSafetyWindow;
    this.checkEvery = b.checkEvery;
    this.removeOrphansEvery = b.removeOrphansEvery;
    this.metadataVersionsToKeep = b.metadataVersionsToKeep;
    this.leaseDuration = b.leaseDuration;
  }

  /** The defaults: compact at 10 small files or 10 delete files, in size tiers (4 files within 2x; a file not merged rewritten once 10% of its rows are deleted), expire at 50 snapshots keeping 10 and 5 days, rewrite manifests at 50, remove orphans older than 3 hours. */
  public static MaintenancePolicy defaults() {
    return builder().build();
  }

  /**
   * The defaults for a table a stream writes every second or so ({@code CdcPipeline}'s default,
   * and a good start for {@link TableMaintenance#background}): as {@link #defaults()}, but expiry
   * at 100 snapshots keeping the last 20 and those younger than 15 minutes, and never more than
   * 200 (a 1 s flush makes 86,400 snapshots a day; five days of them would make every commit
   * rewrite a metadata.json of hundreds of MB, and even 15 minutes of a 10-commits-a-second stream
   * would be 9,000 snapshots, about 1 KB of metadata.json each, rewritten by every commit),
   * compaction at 20 small files.
   */
  public static MaintenancePolicy streaming() {
    return builder().expireWhenSnapshotsAtLeast(100).retainLastSnapshots(20).maxSnapshotAge(Duration.ofMinutes(15))
        .maxSnapshots(200).compactWhenSmallFilesAtLeast(20).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.smallFileThreshold = smallFileThreshold;
    b.deleteFileThreshold = deleteFileThreshold;
    b.deletedRowsThreshold = deletedRowsThreshold;
    b.compactionSizeRatio = compactionSizeRatio;
    b.compactionTierFiles = compactionTierFiles;
    b.snapshotThreshold = snapshotThreshold;
    b.manifestThreshold = manifestThreshold;
    b.retainLastSnapshots = retainLastSnapshots;
    b.maxSnapshotAge = maxSnapshotAge;
    b.maxSnapshots = maxSnapshots;
    b.removeOrphans = removeOrphans;
    b.orphanSafetyWindow = orphanSafetyWindow;
    b.checkEvery = checkEvery;
    b.removeOrphansEvery = removeOrphansEvery;
    b.metadataVersionsToKeep = metadataVersionsToKeep;
    b.leaseDuration = leaseDuration;
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

  /**
   * A compaction rewrites a file it does not merge (with size tiers: any file outside a tier ready
   * to merge; with {@link Builder#compactEverySmallFile()}: a file at or above the small-file size)
   * only once this fraction of its rows is deleted (default {@value #DEFAULT_DELETED_ROWS_THRESHOLD}).
   * See {@link Compaction#deletedRowsThreshold}.
   */
  public double deletedRowsThreshold() {
    return deletedRowsThreshold;
  }

  /**
   * The compaction's size tiers (see {@link Compaction#sizeTiers}): among the small files, a file
   * is merged with the smaller ones when it is at most this many times their total size (default
   * {@value #DEFAULT_COMPACTION_SIZE_RATIO}); {@code 0} when the policy's compaction rewrites every
   * small file ({@link Builder#compactEverySmallFile()}). With tiers, a round rewrites what was
   * written since the last rounds, not the table, and the plan runs a compaction only when some
   * tier is ready or some file's deletes reach {@link #deletedRowsThreshold()}.
   */
  public double compactionSizeRatio() {
    return compactionSizeRatio;
  }

  /**
   * The compaction's size tiers: a tier is merged once it has at least this many files (default
   * {@value #DEFAULT_COMPACTION_TIER_FILES}); see {@link #compactionSizeRatio()}.
   */
  public int compactionTierFiles() {
    return compactionTierFiles;
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

  /**
   * Expiry also removes snapshots beyond the newest {@code maxSnapshots}, however young (never
   * below {@link #retainLastSnapshots()}, never a ref's snapshot), so the metadata every commit
   * rewrites stays bounded at any commit rate; unlimited ({@link Integer#MAX_VALUE}) by default.
   */
  public int maxSnapshots() {
    return maxSnapshots;
  }

  /** Whether orphan-file removal runs (last, after expiry). */
  public boolean removeOrphans() {
    return removeOrphans;
  }

  /** The orphan safety window (at least {@link OrphanFileRemoval#MINIMUM_SAFETY_WINDOW}). */
  public Duration orphanSafetyWindow() {
    return orphanSafetyWindow;
  }

  /** Background maintenance: how often it looks at the table (and renews its lease); default 30 s. */
  public Duration checkEvery() {
    return checkEvery;
  }

  /**
   * Background maintenance: how often it removes orphan files (when {@link #removeOrphans()}), at
   * the first check it holds the lease and then at this interval; default 6 hours. Listing a
   * table's files costs more than the other checks, and a crash leaves orphans rarely.
   */
  public Duration removeOrphansEvery() {
    return removeOrphansEvery;
  }

  /**
   * Background maintenance sets {@code write.metadata.delete-after-commit.enabled=true} and
   * {@code write.metadata.previous-versions-max} to this on the tables it maintains, so old
   * metadata.json files are deleted by the commits themselves; default 20.
   */
  public int metadataVersionsToKeep() {
    return metadataVersionsToKeep;
  }

  /**
   * Background maintenance: how long its lease (one maintainer per table across processes) lasts
   * without renewal; default 5 minutes. It is renewed at every check and before every step, so it
   * must be longer than {@link #checkEvery()} and than the longest step; a holder that dies is
   * taken over by another process once it expired.
   */
  public Duration leaseDuration() {
    return leaseDuration;
  }

  @Override
  public String toString() {
    return "MaintenancePolicy{smallFiles>=" + smallFileThreshold + ", deleteFiles>=" + deleteFileThreshold
        + ", deletedRows>=" + deletedRowsThreshold
        + (compactionSizeRatio == 0 ? ", compactEverySmallFile" : ", sizeTiers=" + compactionSizeRatio + "x/"
            + compactionTierFiles)
        + ", snapshots>=" + snapshotThreshold + ", manifests>=" + manifestThreshold
        + ", retainLast=" + retainLastSnapshots + ", maxSnapshotAge=" + maxSnapshotAge
        + (maxSnapshots == Integer.MAX_VALUE ? "" : ", maxSnapshots=" + maxSnapshots)
        + ", removeOrphans=" + removeOrphans + ", orphanSafetyWindow=" + orphanSafetyWindow
        + ", checkEvery=" + checkEvery + ", removeOrphansEvery=" + removeOrphansEvery
        + ", metadataVersionsToKeep=" + metadataVersionsToKeep + ", leaseDuration=" + leaseDuration + "}";
  }

  /** Builds a {@link MaintenancePolicy}; each setter checks its value. Not thread-safe. */
  public static final class Builder {
    private int smallFileThreshold = 10;
    private int deleteFileThreshold = 10;
    private double deletedRowsThreshold = DEFAULT_DELETED_ROWS_THRESHOLD;
    private double compactionSizeRatio = DEFAULT_COMPACTION_SIZE_RATIO;
    private int compactionTierFiles = DEFAULT_COMPACTION_TIER_FILES;
    private int snapshotThreshold = 50;
    private int manifestThreshold = 50;
    private int retainLastSnapshots = 10;
    private Duration maxSnapshotAge = Duration.ofDays(5);
    private int maxSnapshots = Integer.MAX_VALUE;
    private boolean removeOrphans = true;
    private Duration orphanSafetyWindow = OrphanFileRemoval.DEFAULT_SAFETY_WINDOW;
    private Duration checkEvery = Duration.ofSeconds(30);
    private Duration removeOrphansEvery = Duration.ofHours(6);
    private int metadataVersionsToKeep = 20;
    private Duration leaseDuration = Duration.ofMinutes(5);

    private Builder() {}

    /** See {@link MaintenancePolicy#checkEvery()}; at least 1 ms. */
    public Builder checkEvery(Duration interval) {
      this.checkEvery = positive("set maintenance check interval", "interval", interval);
      return this;
    }

    /** See {@link MaintenancePolicy#removeOrphansEvery()}; at least 1 ms. */
    public Builder removeOrphansEvery(Duration interval) {
      this.removeOrphansEvery = positive("set orphan removal interval", "interval", interval);
      return this;
    }

    /** See {@link MaintenancePolicy#metadataVersionsToKeep()}; at least 1. */
    public Builder metadataVersionsToKeep(int count) {
      this.metadataVersionsToKeep = atLeastOne("metadata versions to keep", count);
      return this;
    }

    /** See {@link MaintenancePolicy#leaseDuration()}; at least 100 ms. */
    public Builder leaseDuration(Duration duration) {
      InvalidArgumentException.requireNonNull(duration, "set maintenance lease", "duration");
      InvalidArgumentException.check(duration.toMillis() >= 100,
          "Cannot set maintenance lease: shorter than 100 ms: %s", duration);
      this.leaseDuration = duration;
      return this;
    }

    private static Duration positive(String verb, String name, Duration value) {
      InvalidArgumentException.requireNonNull(value, verb, name);
      InvalidArgumentException.check(value.toMillis() >= 1, "Cannot %s: must be at least 1 ms: %s", verb, value);
      return value;
    }

    public Builder compactWhenSmallFilesAtLeast(int count) {
      this.smallFileThreshold = atLeastOne("small-file threshold", count);
      return this;
    }

    public Builder compactWhenDeleteFilesAtLeast(int count) {
      this.deleteFileThreshold = atLeastOne("delete-file threshold", count);
      return this;
    }

    /** See {@link MaintenancePolicy#deletedRowsThreshold()}; between 0 and 1. */
    public Builder rewriteFilesWhenDeletedRowsAtLeast(double fraction) {
      this.deletedRowsThreshold = fraction(fraction);
      return this;
    }

    /**
     * See {@link MaintenancePolicy#compactionSizeRatio()} and {@link Compaction#sizeTiers}.
     *
     * @throws InvalidArgumentException {@code Cannot set compaction size tiers: size ratio must be a
     *     number of at least 1: 0.5}, or {@code ...: files per tier must be at least 2: 1}
     */
    public Builder compactSizeTiers(double sizeRatio, int minFiles) {
      if (!(sizeRatio >= 1) || Double.isInfinite(sizeRatio)) {
        throw new InvalidArgumentException(
            "Cannot set compaction size tiers: size ratio must be a number of at least 1: " + sizeRatio);
      }
      if (minFiles < 2) {
        throw new InvalidArgumentException("Cannot set compaction size tiers: files per tier must be at least 2: " + minFiles);
      }
      this.compactionSizeRatio = sizeRatio;
      this.compactionTierFiles = minFiles;
      return this;
    }

    /**
     * The policy's compaction rewrites every small file of a partition at each round (a full
     * compaction, as before size tiers): its cost follows the table's small files, not what
     * arrived since the last round. {@link #compactSizeTiers} turns tiers back on.
     */
    public Builder compactEverySmallFile() {
      this.compactionSizeRatio = 0;
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

    /** See {@link MaintenancePolicy#maxSnapshots()}; at least 1 and at least {@code retainLastSnapshots}. */
    public Builder maxSnapshots(int count) {
      this.maxSnapshots = atLeastOne("maximum snapshots", count);
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

    /**
     * @throws InvalidArgumentException {@code Cannot build maintenance policy: lease duration not
     *     above the check interval: PT30S <= PT1M} (the lease would lapse between checks), or
     *     fewer maximum snapshots than snapshots to retain
     */
    public MaintenancePolicy build() {
      InvalidArgumentException.check(leaseDuration.compareTo(checkEvery) > 0,
          "Cannot build maintenance policy: lease duration not above the check interval: %s <= %s",
          leaseDuration, checkEvery);
      InvalidArgumentException.check(maxSnapshots >= retainLastSnapshots,
          "Cannot build maintenance policy: maximum snapshots below the snapshots to retain: %s < %s",
          maxSnapshots, retainLastSnapshots);
      return new MaintenancePolicy(this);
    }

    /** A deleted-rows fraction, checked as {@link Compaction#deletedRowsThreshold} checks it. */
    static double fraction(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new InvalidArgumentException("Cannot set deleted-rows threshold: must be between 0 and 1: " + fraction);
      }
      return fraction;
    }

    private static int atLeastOne(String what, int count) {
      if (count < 1) {
        throw new InvalidArgumentException("Cannot set " + what + ": must be at least 1: " + count);
      }
      return count;
    }
  }
}
