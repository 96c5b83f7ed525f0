package dev.featurestore;

import org.apache.iceberg.Schema;

/**
 * The rows of an executed query, streamed. Iterate once, then close. {@link #scanStats()} is
 * complete once iteration has finished.
 */
public interface QueryResult extends Rows {
  /** The schema of the rows. */
  Schema schema();

  /** The snapshot that was read, or -1 for a table with no snapshot. */
  long snapshotId();

  /** What the scan planned and read. */
  ScanStats scanStats();
}
