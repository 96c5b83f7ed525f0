package dev.featurestore.core.base;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.DoubleConsumer;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * Internal plug-in point (outside the compatibility promise): an engine that writes the rows of a
 * local CSV or Parquet file as Parquet data files of an Iceberg table, faster than Iceberg's generic
 * writer. Core finds engines with {@link java.util.ServiceLoader} when a file ingest runs
 * (featurestore-duckdb provides one); without one, or when the engine declines, the ingest reads
 * the file with its own Java path.
 *
 * <p>The contract that makes the two paths interchangeable: for a source it does not decline, an
 * engine writes exactly the rows the Java path would write (the same values after the same
 * conversions), or fails. Anything it cannot convert exactly as the Java path does (a value
 * outside the plain text forms it checks, a type pair it does not know, a malformed line) makes it
 * decline or fail, never guess: the ingest then runs the Java path, which writes the rows or reports
 * the typed error. Core verifies what it can (field ids, partition values against each file's
 * column bounds) before it commits anything.
 *
 * <p>Each data file holds the table's columns in schema order with their Iceberg field ids and the
 * exact Parquet types of the Iceberg types, and the rows of exactly one partition.
 */
public interface FileIngestEngine {
  /** The engine's name, recorded in the snapshot summary of the ingests it writes. */
  String name();

  /**
   * Prepares writing {@code request}'s source.
   *
   * @throws Declined if this engine cannot write the source exactly as the Java path would
   */
  Job prepare(Request request) throws Declined;

  /** The source formats an engine may be asked to write. */
  enum Format {
    CSV, PARQUET
  }

  /**
   * What to write.
   *
   * @param format the source's format
   * @param source the local file to read
   * @param inputColumns the source's column names in file order (CSV: the header as the Java path's
   *     parser read it; every name is a column of {@code schema})
   * @param schema the table schema: the columns to write, in order, with their field ids; columns
   *     not in the input are written as nulls
   * @param spec the partition spec: one data file (or more, past the target size) per partition
   * @param outputDirectory an empty local directory the engine writes its files into (anywhere
   *     below it); the caller moves them into the table and deletes the directory
   * @param compressionCodec the Parquet codec (Iceberg's name: zstd, snappy, gzip, uncompressed, ...)
   * @param compressionLevel the codec level, if the table sets one
   * @param targetFileSizeBytes the size at which a partition's file rolls to the next
   * @param canonicalColumns CSV input columns whose every field the caller checks, beside the
   *     engine, before it takes the engine's files: each is empty (null; never in a required
   *     column) or holds, unquoted or between its quotes, only the canonical text of the column's
   *     type (a file with another value is ingested by the Java path, whatever the engine wrote).
   *     Core lists every CSV input column of type int, long, double and timestamp (micros, with or
   *     without zone), and no other; an engine may read these with a typed reader that reads every
   *     canonical text as the Java path does, and decline a request that leaves one out (the
   *     DuckDB engine does: it checks no such text itself). The forms: int and long {@code -?(0|[1-9][0-9]*)} in range, not {@code -0}; double
   *     {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,4})?} of magnitude zero or 1e-300 to
   *     1e301; timestamp (micros, with or without zone) ISO-8601 {@code yyyy-MM-dd} with an optional
   *     {@code [T ]HH:mm[:ss[.f{1,6}]]} and, after a time, an optional {@code Z} or {@code ±HH:mm}
   *     offset up to 18:00 (none means UTC), with a year from 1000 and valid calendar fields
   */
  record Request(Format format, Path source, List<String> inputColumns, Schema schema, PartitionSpec spec,
      Path outputDirectory, String compressionCodec, OptionalInt compressionLevel, long targetFileSizeBytes,
      java.util.Set<String> canonicalColumns) {
    public Request {
      inputColumns = List.copyOf(inputColumns);
      canonicalColumns = java.util.Set.copyOf(canonicalColumns);
    }
  }

  /**
   * One data file written.
   *
   * @param path where the file is, below the request's output directory
   * @param rows its row count
   * @param partition its partition values in Iceberg's internal representation (day ordinals as
   *     {@code Integer}, identity timestamps as micros, strings as {@code String}; null for a null
   *     value), one per partition field
   */
  record WrittenFile(Path path, long rows, List<Object> partition) {
    public WrittenFile {
      partition = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(partition));
    }
  }

  /** A prepared write. */
  interface Job extends AutoCloseable {
    /**
     * Writes the files; blocks until they are written. Calls {@code progress} on the calling thread
     * now and then with the fraction done (0 to 1).
     *
     * @throws Declined if the source turned out to hold a row this engine cannot convert exactly
     *     as the Java path would, or if {@link #cancel()} was called; the files written so far stay
     *     in the output directory, which the caller deletes
     */
    List<WrittenFile> run(DoubleConsumer progress) throws Declined;

    /** Stops a running {@link #run}, from any thread: it then throws {@link Declined}. */
    void cancel();

    /** Releases the engine's resources; safe to call twice. */
    @Override
    void close();
  }

  /** The engine does not write this source (the Java path will). Carries the reason, for the log. */
  final class Declined extends Exception {
    private static final long serialVersionUID = 1L;

    public Declined(String reason) {
      super(reason, null, false, false);
    }

    public Declined(String reason, Throwable cause) {
      super(reason, cause, false, false);
    }
  }
}
