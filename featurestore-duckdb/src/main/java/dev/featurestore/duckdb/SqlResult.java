package dev.featurestore.duckdb;

import dev.featurestore.Row;
import dev.featurestore.Rows;
import java.sql.ResultSet;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The rows of a query, streamed from DuckDB. Read them once, in one of three ways: as {@link
 * Row}s (values in Iceberg's generic Java types, as {@link dev.featurestore.QueryResult} gives
 * them), through the JDBC {@link #resultSet()}, or as Arrow record batches ({@link
 * #arrow(BufferAllocator)}); then close the result. Not thread-safe, except {@link #cancel()}.
 */
public interface SqlResult extends Rows {
  /** Column names, in order. */
  List<String> columns();

  /**
   * The underlying JDBC result set (DuckDB's types). Valid until the result is closed; do not
   * mix with iterating rows.
   */
  ResultSet resultSet();

  /** The default number of rows in one Arrow batch: 122,880 (DuckDB's row group size). */
  int DEFAULT_ARROW_BATCH_ROWS = 122_880;

  /**
   * The remaining rows as Arrow record batches, handed over by DuckDB through the Arrow C data
   * interface (no per-value copying in Java). Batches hold at most {@link
   * #DEFAULT_ARROW_BATCH_ROWS} rows.
   *
   * <pre>{@code
   * try (BufferAllocator allocator = new RootAllocator();
   *      SqlResult result = sql.query("SELECT * FROM ev").table("ev", events).execute();
   *      ArrowReader reader = result.arrow(allocator)) {
   *   VectorSchemaRoot batch = reader.getVectorSchemaRoot();
   *   while (reader.loadNextBatch()) {
   *     // batch.getRowCount() rows, valid until the next loadNextBatch()
   *   }
   * }
   * }</pre>
   *
   * <p>Ownership: the buffers are allocated from {@code allocator}, which stays the caller's. The
   * reader belongs to the caller and should be closed before the allocator (closing an
   * allocator that still holds buffers fails); it is valid only while this result is open, and
   * closing the result closes the reader too if the caller has not. Needs {@code
   * --add-opens=java.base/java.nio=ALL-UNNAMED} on the JVM command line (Arrow's memory module).
   *
   * @throws dev.featurestore.InvalidStateException if rows were already read from this result, or it is closed
   */
  default ArrowReader arrow(BufferAllocator allocator) {
    return arrow(allocator, DEFAULT_ARROW_BATCH_ROWS);
  }

  /** As {@link #arrow(BufferAllocator)}, with at most {@code batchRows} rows per batch. */
  ArrowReader arrow(BufferAllocator allocator, int batchRows);

  /** What each table's scan planned and read, and the time spent; rows counted so far. */
  SqlStats stats();

  /** Interrupts the running query from any thread; reading further rows then fails. */
  void cancel();
}
