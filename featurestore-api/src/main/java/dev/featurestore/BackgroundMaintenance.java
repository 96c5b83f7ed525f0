package dev.featurestore;

/**
 * Maintenance of one table running on its own thread, started by
 * {@link TableMaintenance#background(MaintenancePolicy)} (or by a CDC pipeline for its tables).
 * Every {@link MaintenancePolicy#checkEvery()} it plans the policy and runs what is due:
 * compaction, manifest rewrite, snapshot expiry, and orphan removal every
 * {@link MaintenancePolicy#removeOrphansEvery()}.
 *
 * <pre>{@code
 * try (BackgroundMaintenance maintenance = table.maintenance().background(MaintenancePolicy.streaming())) {
 *   ... // write to the table for days
 *   log.info("{}", maintenance.status());
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>One maintainer per table</b> across processes and hosts sharing the catalog: a round
 *       runs only while this process holds the lease {@code maintenance:<namespace.table>} in the
 *       catalog database; a process that does not hold it skips the round. The lease is renewed
 *       at every check and before every step; a holder that died is taken over once its lease
 *       expired. (REST and caller-supplied catalogs have no database for a lease: there every
 *       process maintains, so start it in one process only.)
 *   <li><b>Writers win.</b> Maintenance commits are ordinary optimistic commits; when one conflicts
 *       with a writer's, maintenance gives up the round and plans again at the next check. A
 *       commit whose outcome is unknown is never retried: the next check re-reads the table.
 *   <li>What each round did reaches {@link MetricsListener#onMaintenance} and, when it did
 *       anything, one INFO log line.
 * </ul>
 *
 * <p>{@link #close()} stops it: a running step is finished (not interrupted), the lease is
 * released. Closing the store closes it too. Thread-safe.
 */
public interface BackgroundMaintenance extends AutoCloseable {
  /** What it did so far (counters since it started). */
  BackgroundMaintenanceStatus status();

  /** Stops the checks, waits for a running step to finish, releases the lease. Safe to call twice. */
  @Override
  void close();
}
