package dev.featurestore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rows streamed from an executed read: iterate once, then close. The values are in Iceberg's
 * generic Java types whichever engine read them, so a {@link QueryResult} (Iceberg's reader) and
 * an SQL result of the DuckDB adapter read the same way. Not thread-safe.
 */
public interface Rows extends Iterable<Row>, AutoCloseable {
  /** Reads all remaining rows as maps (column name to value). Convenient for small results. */
  default List<Map<String, Object>> toList() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Row row : this) {
      rows.add(row.toMap());
    }
    return rows;
  }

  /** Releases what the result holds; safe to call twice. */
  @Override
  void close();
}
