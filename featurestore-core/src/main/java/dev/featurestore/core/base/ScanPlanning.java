package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.Scan;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;

/**
 * Internal: the one place table scans are created, and where their planning (reading manifests,
 * matching delete files to data files) runs. Iceberg plans a snapshot with more than one data or
 * delete manifest on its shared worker pool and waits for the workers by polling with 10 ms sleeps
 * ({@code ParallelIterable.hasNext}, {@code Tasks.waitFor}), so a small plan costs the caller tens
 * of milliseconds of waiting for a few milliseconds of work: a merge-on-read current state after
 * 110 batches (13 manifests, 110 data files, 109 deletion vectors) planned in ~47 ms wall for ~14
 * ms of CPU, the same table written once (one manifest, no pool) in ~1 ms. A snapshot whose
 * manifests are on local disk and few ({@value #MAX_INLINE_MANIFESTS} or fewer) is therefore
 * planned on the calling thread (a direct executor: same tasks, same order of work, no sleeps).
 * Manifests in object storage, or many of them, stay on Iceberg's worker pool, where reading them
 * in parallel pays for the polling.
 *
 * <p>Every scan of a table in the store and its adapters (cdc, duckdb, the command line) starts
 * here ({@code Table.newScan()} elsewhere is a layering violation, see the layering tests):
 *
 * <pre>{@code
 * try (CloseableIterable<FileScanTask> tasks = ScanPlanning.newScan(table, snapshot).filter(f).planFiles()) { ... }
 * }</pre>
 *
 * <p>Refinements after these methods (filter, projection, column stats) keep the planning
 * executor. Thread-safe: no state.
 */
public final class ScanPlanning {
  /** Up to this many manifests (data and delete) in local storage, a snapshot is planned on the calling thread. */
  static final int MAX_INLINE_MANIFESTS = 32;

  private ScanPlanning() {}

  /**
   * A scan of {@code snapshot} (its schema, {@code useSnapshot}), planned on the calling thread if
   * its manifests are local and few.
   */
  public static TableScan newScan(Table table, Snapshot snapshot) {
    requireNonNull(table, "table is null");
    requireNonNull(snapshot, "snapshot is null");
    return onCallingThreadIfSmall(table.newScan().useSnapshot(snapshot.snapshotId()), table, snapshot);
  }

  /**
   * A scan of the snapshot with id {@code snapshotId}, as {@link #newScan(Table, Snapshot)}.
   *
   * @throws IllegalArgumentException if the table has no such snapshot (Iceberg's message)
   */
  public static TableScan newScan(Table table, long snapshotId) {
    requireNonNull(table, "table is null");
    Snapshot snapshot = table.snapshot(snapshotId);
    return snapshot == null ? table.newScan().useSnapshot(snapshotId) : newScan(table, snapshot);
  }

  /**
   * A scan of the table's current snapshot and schema (no {@code useSnapshot}: an empty table plans
   * nothing), planned on the calling thread if the current snapshot's manifests are local and few.
   * Also for Iceberg's metadata tables, whose current snapshot and FileIO are their table's.
   */
  public static TableScan newCurrentScan(Table table) {
    requireNonNull(table, "table is null");
    return onCallingThreadIfSmall(table.newScan(), table, table.currentSnapshot());
  }

  /**
   * The scan, set to plan on the calling thread if {@code snapshot}'s manifests are local and few
   * (the manifest list is read here; the scan reuses it); unchanged if {@code snapshot} is null.
   */
  static <S extends Scan<S, ?, ?>> S onCallingThreadIfSmall(S scan, Table table, Snapshot snapshot) {
    return snapshot != null && inline(table, snapshot) ? scan.planWith(MoreExecutors.newDirectExecutorService()) : scan;
  }

  static boolean inline(Table table, Snapshot snapshot) {
    String list = snapshot.manifestListLocation();
    if (list == null || !CommitPhases.isLocal(list)) {
      return false;
    }
    return snapshot.dataManifests(table.io()).size() + snapshot.deleteManifests(table.io()).size() <= MAX_INLINE_MANIFESTS;
  }
}
