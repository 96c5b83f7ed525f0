package dev.featurestore;

import java.time.Duration;
import java.util.List;

/**
 * One check of a {@link BackgroundMaintenance}, as reported to {@link MetricsListener#onMaintenance}.
 *
 * @param table the table
 * @param outcome what came of it
 * @param lease what happened to the lease in this check
 * @param leaseToken the fencing token of the lease held (0 when none is held or there is no lease database)
 * @param tasks the steps that ran, in order
 * @param snapshotsExpired snapshots expired
 * @param dataFilesCompacted data files rewritten by compaction
 * @param deleteFilesRemoved delete files folded by compaction
 * @param manifestsRewritten data manifests replaced
 * @param orphanFilesRemoved orphan files deleted
 * @param bytesFreed bytes deleted by expiry and orphan removal
 * @param elapsed wall time of the check
 * @param message a summary, or the failure's message
 */
public record MaintenanceRun(
    TableId table, Outcome outcome, Lease lease, long leaseToken, List<MaintenanceTask> tasks,
    long snapshotsExpired, long dataFilesCompacted, long deleteFilesRemoved, long manifestsRewritten,
    long orphanFilesRemoved, long bytesFreed, Duration elapsed, String message) {
  public MaintenanceRun {
    tasks = List.copyOf(tasks);
  }

  /** What came of a check. */
  public enum Outcome {
    /** At least one step ran. */
    DONE,
    /** Below every threshold. */
    NOTHING_TO_DO,
    /** Another process holds the lease. */
    SKIPPED,
    /** A maintenance commit conflicted with a writer's: given up, planned again at the next check. */
    CONFLICT,
    /** A maintenance commit's outcome is unknown: not retried, the next check re-reads the table. */
    COMMIT_STATE_UNKNOWN,
    /** Another failure (storage, catalog); tried again at the next check. */
    FAILED
  }

  /** What happened to the maintenance lease in a check. */
  public enum Lease {
    /** Granted free (never held, or released by its holder). */
    ACQUIRED,
    /** Taken over from a holder whose lease had expired. */
    TAKEN_OVER,
    /** Held since an earlier check, renewed. */
    HELD,
    /** Taken over by another process: this one stopped. */
    LOST,
    /** Held by another process. */
    HELD_ELSEWHERE,
    /** The catalog has no database for a lease (REST, caller-supplied). */
    NONE
  }
}
