package dev.featurestore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;

/**
 * The rows of an executed query, streamed. Iterate once, then close. {@link #scanStats()} is
 * complete once iteration has finished.
 */
public interface QueryResult extends Iterable<Row>, AutoCloseable {
  /** The schema of the rows. */
  Schema schema();

  /** The snapshot that was read, or -1 for a table with no snapshot. */
  long snapshotId();

  /** What the scan planned and read. */
  ScanStats scanStats();

  /** Reads all remaining rows as maps (column name to value). Convenient for small results. */
  default List<Map<String, Object>> toList() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Row row : this) {
      rows.add(row.toMap());
    }
    return rows;
  }

  @Override
  void close();
}
