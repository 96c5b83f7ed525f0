package dev.featurestore;

import java.time.Duration;

/**
 * Progress of an ingest.
 *
 * @param rows rows read and written so far
 * @param filesWritten data files completed so far
 * @param bytesWritten bytes of completed data files so far
 * @param elapsed time since the ingest started
 * @param done true on the last call, after the commit
 */
public record IngestProgress(long rows, long filesWritten, long bytesWritten, Duration elapsed, boolean done) {
  /** Rows per second so far. */
  public double rowsPerSecond() {
    long nanos = elapsed.toNanos();
    return nanos == 0 ? 0 : rows * 1e9 / nanos;
  }
}
