package dev.featurestore;

/**
 * Receives a report after every scan a table plans and every commit that lands, to forward to a
 * metrics system (Micrometer, OpenTelemetry, a log). The reports are Iceberg's scan and commit
 * reports, translated into this library's own records.
 *
 * <pre>{@code
 * FeatureStore store = FeatureStore.builder()
 *     .root(Path.of("my-store"))
 *     .metricsListener(new MetricsListener() {
 *       public void onCommit(CommitMetrics commit) {
 *         registry.timer("featurestore.commit", "table", commit.table().toString()).record(commit.duration());
 *       }
 *     })
 *     .build();
 * }</pre>
 *
 * <p>Called on the thread that planned the scan or made the commit, after the fact: a slow
 * listener slows that thread down, so hand heavy work to another thread. An exception thrown by a
 * listener is logged and ignored; it never fails the scan or the commit. Implementations must be
 * thread-safe: scans and commits of several tables may report at once.
 */
public interface MetricsListener {
  /** Called once for every planned scan (a query, an export, a count). */
  default void onScan(ScanMetrics scan) {}

  /** Called once for every commit that landed (ingest, schema-changing ingest, compaction, ...). */
  default void onCommit(CommitMetrics commit) {}

  /**
   * Called after every check of a {@link BackgroundMaintenance} (on its thread): what it did, what
   * happened to its lease, or why it failed.
   */
  default void onMaintenance(MaintenanceRun run) {}

  /**
   * Called when an operation could not be written to the operations log
   * ({@link FeatureStore#operations()}); the operation itself succeeded.
   *
   * @param operation the operation's name, e.g. {@code ingest}
   * @param reason why the log refused it (never a credential)
   */
  default void onOperationNotRecorded(String operation, String reason) {}

  /** Called once after every materialization of an online view (its mode, rows, duration and the view's lag). */
  default void onOnlineMaterialization(OnlineMaterialization materialization) {}
}
