package dev.featurestore.duckdb;

import dev.featurestore.Row;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The rows of a query, streamed from DuckDB. Read them once, either as {@link Row}s (values in
 * Iceberg's generic Java types, as {@link dev.featurestore.QueryResult} gives them) or through the
 * JDBC {@link #resultSet()}, then close the result. Not thread-safe, except {@link #cancel()}.
 */
public interface SqlResult extends Iterable<Row>, AutoCloseable {
  /** Column names, in order. */
  List<String> columns();

  /**
   * The underlying JDBC result set (DuckDB's types). Valid until the result is closed; do not
   * mix with iterating rows.
   */
  ResultSet resultSet();

  /** What each table's scan planned and read, and the time spent; rows counted so far. */
  SqlStats stats();

  /** Interrupts the running query from any thread; reading further rows then fails. */
  void cancel();

  /** Reads all remaining rows as maps (column name to value). */
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
