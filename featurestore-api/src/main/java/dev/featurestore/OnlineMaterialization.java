package dev.featurestore;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What one materialization of an online view did; also reported to
 * {@link MetricsListener#onOnlineMaterialization}.
 *
 * @param view the view's name
 * @param table the source table
 * @param mode full rebuild, incremental, or nothing to do
 * @param reason why this mode (for a rebuild: what made incremental unsafe)
 * @param fromSnapshotId the snapshot the view reflected before (empty: none)
 * @param toSnapshotId the snapshot it reflects now (empty: the table has no snapshot)
 * @param rowsRead source rows read
 * @param keysWritten keys written or removed in the view
 * @param duration how long it took
 * @param lag the view's lag right after
 */
public record OnlineMaterialization(
    String view, TableId table, Mode mode, String reason, OptionalLong fromSnapshotId, OptionalLong toSnapshotId,
    long rowsRead, long keysWritten, Duration duration, OnlineLag lag) {
  public enum Mode { FULL, INCREMENTAL, UP_TO_DATE }
}
