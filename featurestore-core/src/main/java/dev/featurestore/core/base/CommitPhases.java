package dev.featurestore.core.base;

import java.util.concurrent.ExecutorService;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;

/**
 * Internal: where a commit's manifest phases run. Iceberg runs each phase of a snapshot commit
 * (filtering and merging manifests, writing the new manifests, preparing the manifest list) as a
 * task set on its shared worker pool and waits for a task set by polling its futures every 10 ms
 * ({@code Tasks.waitFor}). For a small commit the tasks take well under a millisecond, so each
 * phase costs one 10 ms poll: four phases were about 36 ms of a 56 ms local append (measured with
 * JFR's {@code jdk.ThreadSleep} events; docs/benchmarks.md). On local disk the phases run on the
 * committing thread instead, where they finish before Iceberg first checks them. On a bucket,
 * where a phase reads or writes manifests over the network, the worker pool stays, so those
 * requests still overlap.
 */
public final class CommitPhases {
  private static final ExecutorService CALLING_THREAD = MoreExecutors.newDirectExecutorService();

  private CommitPhases() {}

  /** Runs {@code update}'s manifest phases on the committing thread when {@code table} lives on local disk. */
  public static <T extends SnapshotUpdate<T>> T forTable(Table table, T update) {
    if (!isLocal(table.location())) {
      return update;
    }
    // one writer: a small commit writes one manifest per spec anyway
    return update.scanManifestsWith(CALLING_THREAD).writeManifestsWith(CALLING_THREAD, 1);
  }

  /** Whether a table location is on local disk (a plain path or a {@code file:} URI). */
  static boolean isLocal(String location) {
    return location.startsWith("/") || location.startsWith("file:");
  }
}
