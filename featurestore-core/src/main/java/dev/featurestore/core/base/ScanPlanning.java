package dev.featurestore.core.base;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;

/**
 * Internal: where a scan's planning (reading manifests, matching delete files to data files)
 * runs. Iceberg plans a snapshot with more than one data or delete manifest on its shared worker
 * pool and waits for the workers by polling with 10 ms sleeps ({@code ParallelIterable.hasNext},
 * {@code Tasks.waitFor}), so a small plan costs the caller tens of milliseconds of waiting for a
 * few milliseconds of work: a merge-on-read current state after 110 batches (13 manifests, 110
 * data files, 109 deletion vectors) planned in ~47 ms wall for ~14 ms of CPU, the same table
 * written once (one manifest, no pool) in ~1 ms. A snapshot whose manifests are on local disk and
 * few ({@value #MAX_INLINE_MANIFESTS} or fewer) is therefore planned on the calling thread (a
 * direct executor: same tasks, same order of work, no sleeps). Manifests in object storage, or
 * many of them, stay on Iceberg's worker pool, where reading them in parallel pays for the
 * polling.
 */
public final class ScanPlanning {
  /** Up to this many manifests (data and delete) in local storage, a snapshot is planned on the calling thread. */
  static final int MAX_INLINE_MANIFESTS = 32;

  private ScanPlanning() {}

  /**
   * The scan, set to plan on the calling thread if {@code snapshot}'s manifests are local and few
   * (the manifest list is read here; the scan reuses it).
   */
  public static TableScan onCallingThreadIfSmall(TableScan scan, Table table, Snapshot snapshot) {
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
