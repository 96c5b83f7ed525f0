package dev.featurestore.core.ingest;

import dev.featurestore.IngestListener;
import dev.featurestore.IngestProgress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts an ingest run's rows and reports progress to its listener every {@code everyRows} rows
 * (files and bytes from the tracking FileIO). The row count is thread-safe (parallel synthetic
 * writers count into it); reporting happens on the thread that runs the ingest only.
 */
final class IngestProgressTracker {
  private final IngestListener listener;
  private final long everyRows;
  private final TrackingFileIO io;
  private final long startNanos;
  private final AtomicLong rows = new AtomicLong();
  private long nextProgress;

  /**
   * @param listener null when nobody listens
   * @param startNanos when the run started ({@link System#nanoTime()})
   */
  IngestProgressTracker(IngestListener listener, long everyRows, TrackingFileIO io, long startNanos) {
    this.listener = listener;
    this.startNanos = startNanos;
    this.everyRows = everyRows;
    this.io = io;
    this.nextProgress = everyRows;
  }

  long rows() {
    return rows.get();
  }

  /** For a dry run that counts without writing. */
  void setRows(long count) {
    rows.set(count);
  }

  /**
   * Sets the row count to an engine's estimate of the rows written so far and reports when a
   * reporting step is reached. Ingest thread only.
   */
  void estimate(long count) {
    rows.set(count);
    reportIfDue();
  }

  /** Counts one written row and reports when a reporting step is reached. Ingest thread only. */
  void rowWritten() {
    long n = rows.incrementAndGet();
    if (n == nextProgress) {
      report(n);
    }
  }

  /** Counts written rows without reporting: for writers on other threads. */
  void rowsWrittenQuietly(int count) {
    rows.addAndGet(count);
  }

  /** Reports if the row count passed the next reporting step (while waiting for parallel writers). */
  void reportIfDue() {
    long n = rows.get();
    if (n >= nextProgress) {
      report(n);
    }
  }

  Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /** The last report, with {@code done} set. */
  void finished(int files, long bytes, Duration elapsed) {
    if (listener != null) {
      listener.onProgress(new IngestProgress(rows.get(), files, bytes, elapsed, true));
    }
  }

  private void report(long n) {
    nextProgress = n + everyRows;
    if (listener != null) {
      listener.onProgress(new IngestProgress(n, io.filesCompleted(), io.bytesCompleted(), elapsed(), false));
    }
  }
}
