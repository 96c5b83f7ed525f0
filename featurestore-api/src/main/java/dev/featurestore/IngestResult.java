package dev.featurestore;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * What an ingest did.
 *
 * @param snapshotId the snapshot the commit created (empty for a dry run or an empty input)
 * @param rows rows written
 * @param dataFiles data files written
 * @param dataBytes bytes of data files written
 * @param addedColumns columns added by automatic schema evolution
 * @param duration wall time of the whole ingest
 */
public record IngestResult(
    OptionalLong snapshotId,
    long rows,
    int dataFiles,
    long dataBytes,
    List<String> addedColumns,
    Duration duration) {
  public IngestResult {
    addedColumns = List.copyOf(addedColumns);
  }

  /** Rows per second over the whole ingest. */
  public double rowsPerSecond() {
    long nanos = duration.toNanos();
    return nanos == 0 ? 0 : rows * 1e9 / nanos;
  }
}
