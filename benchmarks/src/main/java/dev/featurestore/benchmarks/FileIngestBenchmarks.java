package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * {@code ingest-csv} and {@code ingest-parquet}: ms to ingest one {@code -Drows=} (5,000,000) row
 * file into a table partitioned by {@code day(event_time)}.
 *
 * <p>The file is generated once per run by DuckDB (fixed seed): a feature table's columns
 * (entity id, event time over 7 days as ISO-8601 UTC text, two doubles, an int, a long, a
 * session string and a 10-value country code); CSV with a header, or zstd Parquet.
 *
 * <ul>
 *   <li>ours: {@code table.ingest().csv(file).commit()} (or {@code parquet(file)}) into a fresh
 *       table (zstd, the store's defaults); each round checks the row count and which engine
 *       wrote the files ({@code -Dengine=java} measures the Java path instead);
 *   <li>baseline: DuckDB alone, {@code COPY (SELECT *, CAST(event_time AS DATE) AS day FROM
 *       read_csv(file)) TO dir (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day))}
 *       ({@code read_parquet} for Parquet): the same file, partitioned the same way (one file per
 *       day), on an in-memory DuckDB with the settings our engine uses (1GB memory limit, all
 *       cores, UTC), types detected by DuckDB.
 * </ul>
 *
 * Both sides write into the same store directory and delete their output after each round. Target
 * ratio (time, ours/baseline) <= 1.3. Settings: {@code -Drows=}, {@code -Dwarmups=} (1),
 * {@code -Diterations=} (3), {@code -Dengine=} (auto or java).
 */
final class FileIngestBenchmarks {
  static final String CSV = "ingest-csv";
  static final String PARQUET = "ingest-parquet";

  private FileIngestBenchmarks() {}

  static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "event_time", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, "feature_a", Types.DoubleType.get()),
        Types.NestedField.optional(4, "feature_b", Types.DoubleType.get()),
        Types.NestedField.optional(5, "clicks", Types.IntegerType.get()),
        Types.NestedField.optional(6, "impressions", Types.LongType.get()),
        Types.NestedField.optional(7, "session", Types.StringType.get()),
        Types.NestedField.optional(8, "country", Types.StringType.get()));
  }

  static void csv() throws Exception {
    run(CSV, "csv");
  }

  static void parquet() throws Exception {
    run(PARQUET, "parquet");
  }

  private static void run(String name, String format) throws Exception {
    long rows = Harness.longSetting("rows", 5_000_000);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    String engine = System.getProperty("engine", "auto");
    Harness.progress("%s: rows=%d warmups=%d iterations=%d engine=%s", name, rows, warmups, iterations, engine);
    Path dir = Harness.tempDir(name);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      Path file = dir.resolve("events." + format);
      long start = System.nanoTime();
      generate(file, format, rows);
      Harness.note("%s: source %s, %d rows, %d bytes, generated in %.1f s", name, file.getFileName(), rows,
          Files.size(file), Harness.elapsedNanos(start) / 1e9);
      String[] oursEngine = new String[1];
      long[] oursFiles = new long[1];
      Harness.Trial ours = i -> {
        TableId id = TableId.of("bench", "ingest_" + format + "_" + i);
        TableDefinition.Builder definition = TableDefinition.builder(id, schema())
            .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build());
        if (engine.equals("java")) {
          definition.property("featurestore.ingest.engine", "java");
        }
        FeatureTable table = store.createTable(definition.build());
        System.gc();
        long t0 = System.nanoTime();
        IngestResult result = format.equals("csv") ? table.ingest().csv(file).commit() : table.ingest().parquet(file).commit();
        long nanos = Harness.elapsedNanos(t0);
        if (result.rows() != rows) {
          throw new IllegalStateException("Cannot measure " + name + ": expected " + rows + " rows, got: " + result.rows());
        }
        Table iceberg = table.unwrap(Table.class);
        oursEngine[0] = iceberg.currentSnapshot().summary().getOrDefault("featurestore.ingest.engine", "java");
        oursFiles[0] = result.dataFiles();
        if (!engine.equals("java") && !oursEngine[0].equals("duckdb")) {
          throw new IllegalStateException("Cannot measure " + name + ": the ingest ran on the Java path (see the log)");
        }
        store.dropTable(id, true);
        return nanos / 1e6;
      };
      long[] baselineFiles = new long[1];
      Harness.Trial baseline = i -> {
        Path out = dir.resolve("baseline-" + i);
        try (Connection duck = duck(dir); Statement statement = duck.createStatement()) {
          System.gc();
          long t0 = System.nanoTime();
          String read = format.equals("csv") ? "read_csv(" + quote(file) + ")" : "read_parquet(" + quote(file) + ")";
          long written = 0;
          long files = 0;
          try (ResultSet result = statement.executeQuery("COPY (SELECT *, CAST(event_time AS DATE) AS day FROM " + read
              + ") TO " + quote(out) + " (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day), RETURN_STATS true)")) {
            while (result.next()) {
              written += result.getLong("count");
              files++;
            }
          }
          long nanos = Harness.elapsedNanos(t0);
          if (written != rows) {
            throw new IllegalStateException("Cannot measure " + name + ": baseline wrote " + written + " rows");
          }
          baselineFiles[0] = files;
          return nanos / 1e6;
        } finally {
          Harness.deleteRecursively(out);
        }
      };
      Harness.Medians medians = Harness.alternate(name, "ms", warmups, iterations, ours, baseline);
      if (Harness.runs("ours")) {
        Harness.note("%s ours:     engine=%s files=%d", name, oursEngine[0], oursFiles[0]);
      }
      if (Harness.runs("baseline")) {
        Harness.note("%s baseline: files=%d", name, baselineFiles[0]);
      }
      Harness.result(name, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** The source file, written by DuckDB from a fixed seed. */
  static void generate(Path file, String format, long rows) throws SQLException {
    try (Connection duck = duck(file.getParent()); Statement statement = duck.createStatement()) {
      statement.execute("SELECT setseed(0.42)");
      String select = "SELECT i AS entity_id, "
          + "TIMESTAMPTZ '2026-11-20 00:00:00+00' + to_microseconds(CAST(random() * 7 * 86400e6 AS BIGINT)) AS event_time, "
          + "random() AS feature_a, random() * 100 - 50 AS feature_b, CAST(random() * 1000 AS INTEGER) AS clicks, "
          + "CAST(random() * 1e9 AS BIGINT) AS impressions, "
          + "'session-' || CAST(CAST(random() * 1e6 AS INTEGER) AS VARCHAR) AS session, "
          + "['us','de','fr','jp','br','in','gb','ca','au','mx'][1 + CAST(floor(random() * 10) AS INTEGER)] AS country "
          + "FROM range(" + rows + ") t(i)";
      if (format.equals("csv")) {
        statement.execute("COPY (SELECT entity_id, strftime(event_time, '%Y-%m-%dT%H:%M:%S.%fZ') AS event_time, "
            + "feature_a, feature_b, clicks, impressions, session, country FROM (" + select + ")) TO " + quote(file)
            + " (HEADER)");
      } else {
        statement.execute("COPY (" + select + ") TO " + quote(file) + " (FORMAT parquet, COMPRESSION zstd)");
      }
    }
  }

  /** An in-memory DuckDB set up as the ingest engine sets up its own. */
  static Connection duck(Path work) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("memory_limit", "1GB");
    properties.setProperty("temp_directory", work.resolve("duckdb-tmp").toString());
    Connection connection = DriverManager.getConnection("jdbc:duckdb:", properties);
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET TimeZone = 'UTC'");
    }
    return connection;
  }

  private static String quote(Path path) {
    return "'" + path.toString().replace("'", "''") + "'";
  }
}
