package dev.featurestore;

/**
 * Keeps a table healthy without Spark: snapshot expiry, orphan-file removal, compaction, manifest
 * rewrites, and a plan that decides which of them to run.
 *
 * <pre>{@code
 * TableMaintenance maintenance = table.maintenance();
 * CompactionResult compacted = maintenance.compact().execute();
 * ExpireResult expired = maintenance.expireSnapshots().retainLast(10).execute();
 * OrphanFilesResult dryRun = maintenance.removeOrphanFiles().dryRun();   // nothing deleted
 * OrphanFilesResult removed = maintenance.removeOrphanFiles().execute();
 * }</pre>
 *
 * <p>Safety rules, common to every operation: nothing a ref (branch or tag) holds is expired; no
 * file reachable from any known snapshot or the metadata log is deleted; files younger than the
 * orphan safety window are never deleted, so an in-flight commit of another writer is never
 * damaged. Each operation object is single-use.
 *
 * <p>Thread safety: safe for concurrent use; each call returns a new operation.
 */
public interface TableMaintenance {
  /** Starts a snapshot expiry; set what to keep, then {@code execute()}. */
  SnapshotExpiry expireSnapshots();

  /** Starts an orphan-file removal; {@code dryRun()} reports, {@code execute()} deletes. */
  OrphanFileRemoval removeOrphanFiles();

  /** Starts a compaction of small data files (applying deletes); {@code execute()} commits once. */
  Compaction compact();

  /**
   * Rewrites the current snapshot's data manifests into fewer, target-sized manifests (Iceberg's
   * {@code commit.manifest.target-size-bytes}), in one commit. A table with no snapshot is left
   * unchanged.
   *
   * @throws CommitConflictException if a concurrent commit conflicts after all retries
   */
  RewriteManifestsResult rewriteManifests();

  /**
   * Looks at the table and decides, by the policy's thresholds, which operations would run and
   * why. Nothing runs until {@link MaintenancePlan#run(MaintenanceListener)}.
   */
  MaintenancePlan plan(MaintenancePolicy policy);

  /**
   * As {@link #plan(MaintenancePolicy)}: the steps decided from this table's metadata by the same
   * thresholds, run in the same order with the same parameters, but each through
   * {@code executor}'s operation ({@code compact()}, {@code rewriteManifests()},
   * {@code expireSnapshots()}, {@code removeOrphanFiles()}) instead of this one's ({@code
   * executor.compact()} is called, and configured, when the plan is made; whether the compaction
   * step is worth it is decided by this library's compaction rules). How another
   * engine maintains the table with the library's vocabulary: featurestore-spark passes its
   * {@code SparkTableMaintenance}, which runs each step as a Spark action.
   *
   * @throws InvalidArgumentException if {@code policy} or {@code executor} is null
   */
  MaintenancePlan plan(MaintenancePolicy policy, TableMaintenance executor);

  /**
   * Starts maintaining this table in the background with {@code policy}, on a daemon thread of its
   * own, until the returned handle or the store is closed (see {@link BackgroundMaintenance}: one
   * maintainer per table across processes, writers win every conflict). The first check runs
   * after {@link MaintenancePolicy#checkEvery()}. It also sets the table's metadata retention
   * ({@link MaintenancePolicy#metadataVersionsToKeep()}).
   *
   * @throws InvalidArgumentException if {@code policy} is null
   */
  BackgroundMaintenance background(MaintenancePolicy policy);
}
