package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.Row;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

/** A streamed result; owns its execution (connection, cached files, timeout) until closed. */
final class DuckSqlResult implements SqlResult {
  private final Execution execution;
  private final ResultSet resultSet;
  private final SqlRow.Columns columns;
  private long rows = 0;
  private long executionNanos;
  private boolean iterated = false;
  private ResultArrowReader arrow;
  private boolean closed = false;

  DuckSqlResult(Execution execution, ResultSet resultSet, long executionNanos) throws SQLException {
    this.execution = execution;
    this.resultSet = resultSet;
    this.columns = new SqlRow.Columns(resultSet.getMetaData());
    this.executionNanos = executionNanos;
  }

  @Override
  public List<String> columns() {
    return columns.names;
  }

  @Override
  public ResultSet resultSet() {
    checkOpen();
    return resultSet;
  }

  @Override
  public ArrowReader arrow(BufferAllocator allocator, int batchRows) {
    InvalidArgumentException.requireNonNull(allocator, "read query result as Arrow", "allocator");
    if (batchRows < 1) {
      throw new InvalidArgumentException("Cannot read Arrow batches: batch rows must be at least 1: " + batchRows);
    }
    checkOpen();
    if (iterated) {
      throw new InvalidStateException("Cannot read query result as Arrow: already read (a result is single-use)");
    }
    iterated = true;
    long start = System.nanoTime();
    try {
      ArrowReader exported = (ArrowReader) resultSet.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows);
      arrow = new ResultArrowReader(allocator, exported, n -> rows += n, this::checkOpen);
      return arrow;
    } catch (SQLException e) {
      throw execution.translate(e);
    } catch (RuntimeException e) {
      if (missingAddOpens(e)) {
        throw new dev.featurestore.FeatureStoreException("Cannot read query result as Arrow: start the JVM with "
            + "--add-opens=java.base/java.nio=ALL-UNNAMED (Arrow's C data import needs it)", e);
      }
      throw e;
    } finally {
      executionNanos += System.nanoTime() - start;
    }
  }

  /** Arrow wraps java.nio buffers around DuckDB's memory; without the flag it cannot. */
  private static boolean missingAddOpens(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnsupportedOperationException && String.valueOf(t.getMessage()).contains("DirectByteBuffer")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public SqlStats stats() {
    return new SqlStats(List.copyOf(execution.tableStats()), rows, execution.planningTime(), execution.fetchTime(),
        Duration.ofNanos(executionNanos));
  }

  @Override
  public void cancel() {
    execution.cancel(false);
  }

  @Override
  public Iterator<Row> iterator() {
    checkOpen();
    if (iterated) {
      throw new InvalidStateException("Cannot iterate query result: already iterated (a result is single-use)");
    }
    iterated = true;
    return new Iterator<>() {
      private Row next;

      @Override
      public boolean hasNext() {
        if (next != null) {
          return true;
        }
        if (closed) {
          return false;
        }
        long start = System.nanoTime();
        try {
          if (!resultSet.next()) {
            return false;
          }
          next = new SqlRow(columns, columns.read(resultSet));
          rows++;
          return true;
        } catch (SQLException e) {
          throw execution.translate(e);
        } finally {
          executionNanos += System.nanoTime() - start;
        }
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Row row = next;
        next = null;
        return row;
      }
    };
  }

  private void checkOpen() {
    if (closed) {
      throw new InvalidStateException("Cannot read query result: result is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (arrow != null) {
        arrow.close();
      }
    } catch (java.io.IOException | RuntimeException e) {
      // releasing the stream; the connection is closed next
    }
    try {
      resultSet.close();
    } catch (SQLException e) {
      // the connection is closed next; nothing else to release
    } finally {
      execution.close();
    }
  }

  @Override
  public String toString() {
    return "SqlResult{columns=" + columns.names + ", rows=" + rows + "}";
  }
}
