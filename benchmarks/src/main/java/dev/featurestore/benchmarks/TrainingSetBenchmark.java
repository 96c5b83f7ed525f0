package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.duckdb.SqlExport;
import dev.featurestore.duckdb.TrainingSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * {@code training-set}: a point-in-time training set of {@code -Dlabels=} (1,000,000) labels
 * against {@code -Dfeatures=} (5,000,000) feature rows (feature_events, partitioned by day;
 * 100,000 entities over 7 days; both tables written once per run by the synthetic ingest), with a
 * {@code -DttlHours=} (12) time-to-live, written to Parquet.
 *
 * <ul>
 *   <li>ours: {@code sql.trainingSet().labels(...).features(...).build().exportParquet(file)};
 *   <li>baseline: the same as-of join hand-written for DuckDB ({@code ASOF LEFT JOIN} of
 *       {@code read_parquet} over the same data files, the TTL as a {@code CASE}, same order),
 *       {@code COPY ... TO} a zstd Parquet file, on a plain in-memory DuckDB with the same threads
 *       and memory limit.
 * </ul>
 *
 * Every round checks that both files hold the same rows ({@code EXCEPT ALL} both ways). Target
 * ratio <= 1.5. Settings: {@code -Dwarmups=} (1), {@code -Diterations=} (5), {@code -Dthreads=}
 * (2), {@code -DmemoryLimit=} (2GB), {@code -Dseed=}.
 */
final class TrainingSetBenchmark {
  static final String NAME = "training-set";

  private TrainingSetBenchmark() {}

  static Schema labelSchema() {
    return new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, "label", Types.DoubleType.get()));
  }

  static void run() throws Exception {
    long labelRows = Harness.longSetting("labels", 1_000_000L);
    long featureRows = Harness.longSetting("features", 5_000_000L);
    long ttlHours = Harness.longSetting("ttlHours", 12);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 5);
    long seed = Harness.longSetting("seed", 42);
    SqlBenchmarks.Settings settings = new SqlBenchmarks.Settings(featureRows, warmups, iterations,
        Harness.intSetting("threads", 2), System.getProperty("memoryLimit", "2GB"), seed);
    Harness.progress("%s: labels=%d features=%d ttl=%dh warmups=%d iterations=%d", NAME, labelRows, featureRows,
        ttlHours, warmups, iterations);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      long start = System.nanoTime();
      FeatureTable labels = store.createTable(TableDefinition.builder(TableId.of("bench", "labels"), labelSchema()).build());
      IngestResult labelsWritten = labels.ingest().synthetic(labelRows, seed + 1).commit();
      FeatureTable features = store.createTable(IngestBenchmark.definition(TableId.of("bench", "events")));
      IngestResult featuresWritten = features.ingest().synthetic(featureRows, seed).commit();
      Harness.note("%s: data: %d labels in %d files, %d feature rows in %d files, written in %.1f s", NAME,
          labelsWritten.rows(), labels.stats().dataFiles(), featuresWritten.rows(), features.stats().dataFiles(),
          Harness.elapsedNanos(start) / 1e9);
      List<String> labelFiles = SqlBenchmarks.dataFiles(labels, SqlBenchmarks::localFile);
      List<String> featureFiles = SqlBenchmarks.dataFiles(features, SqlBenchmarks::localFile);
      String baselineQuery = baselineSql(labelFiles, featureFiles, ttlHours);
      Path out = Files.createDirectories(dir.resolve("out"));
      Duration ttl = Duration.ofHours(ttlHours);
      try (SqlEngine sql = SqlBenchmarks.engine(store, settings); Connection duck = SqlBenchmarks.plainDuck(settings)) {
        TrainingSet set = sql.trainingSet()
            .labels(labels.query(), "entity_id", "label_time")
            .features("ev", features.query(), "entity_id", "event_time", ttl, "feature_a", "feature_b")
            .build();
        long[] rows = new long[2];
        double[][] cpu = new double[2][warmups + iterations]; // process CPU ms per round: ours, baseline
        Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, i -> {
          Path file = out.resolve("ours-" + i + ".parquet");
          long c = SqlBenchmarks.processCpuNanos();
          long t = System.nanoTime();
          SqlExport export = set.exportParquet(file);
          double millis = Harness.elapsedNanos(t) / 1e6;
          cpu[0][i] = (SqlBenchmarks.processCpuNanos() - c) / 1e6;
          rows[0] = export.rows();
          checkSame(duck, out, i);
          return millis;
        }, i -> {
          Path file = out.resolve("baseline-" + i + ".parquet");
          long c = SqlBenchmarks.processCpuNanos();
          long t = System.nanoTime();
          try (Statement statement = duck.createStatement()) {
            statement.execute("COPY (" + baselineQuery + ") TO " + quote(file.toString())
                + " (FORMAT parquet, COMPRESSION zstd)");
          }
          double millis = Harness.elapsedNanos(t) / 1e6;
          cpu[1][i] = (SqlBenchmarks.processCpuNanos() - c) / 1e6;
          rows[1] = count(duck, file);
          checkSame(duck, out, i);
          return millis;
        });
        if (Harness.runs("ours") && Harness.runs("baseline")) {
          Harness.note("%s: same rows on both sides in every round: %d rows; %s", NAME, rows[0],
              matched(duck, out.resolve("ours-" + (warmups + iterations - 1) + ".parquet")));
        }
        if (Harness.runs("ours") && Harness.runs("baseline")) {
          double oursCpu = java.util.Arrays.stream(cpu[0], warmups, warmups + iterations).sum();
          double baselineCpu = java.util.Arrays.stream(cpu[1], warmups, warmups + iterations).sum();
          Harness.note("%s: CPU time (process, measured rounds): ours %.0f ms, baseline %.0f ms: ratio %.3f", NAME,
              oursCpu, baselineCpu, oursCpu / baselineCpu);
        }
        Harness.result(NAME, medians, "ms");
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** The as-of join written by hand for DuckDB, over the tables' data files. */
  static String baselineSql(List<String> labelFiles, List<String> featureFiles, long ttlHours) {
    return "SELECT l.*, "
        + "CASE WHEN f.event_time >= l.label_time - INTERVAL " + ttlHours + " HOUR THEN f.feature_a END AS ev__feature_a, "
        + "CASE WHEN f.event_time >= l.label_time - INTERVAL " + ttlHours + " HOUR THEN f.feature_b END AS ev__feature_b "
        + "FROM read_parquet(" + SqlBenchmarks.parquetList(labelFiles) + ") l "
        + "ASOF LEFT JOIN (SELECT entity_id, event_time, feature_a, feature_b FROM read_parquet("
        + SqlBenchmarks.parquetList(featureFiles) + ")) f "
        + "ON l.entity_id = f.entity_id AND l.label_time >= f.event_time "
        + "ORDER BY l.entity_id, l.label_time";
  }

  /** Once both sides of round {@code i} wrote their files: same rows (as multisets), then delete both. */
  private static void checkSame(Connection duck, Path out, int i) throws Exception {
    Path ours = out.resolve("ours-" + i + ".parquet");
    Path baseline = out.resolve("baseline-" + i + ".parquet");
    if (!Files.exists(ours) || !Files.exists(baseline)) {
      return; // the other side has not run yet this round (or -Donly)
    }
    long oursRows = count(duck, ours);
    long baselineRows = count(duck, baseline);
    long onlyOurs = scalar(duck, "SELECT count(*) FROM (SELECT * FROM read_parquet(" + quote(ours.toString())
        + ") EXCEPT ALL SELECT * FROM read_parquet(" + quote(baseline.toString()) + "))");
    long onlyBaseline = scalar(duck, "SELECT count(*) FROM (SELECT * FROM read_parquet(" + quote(baseline.toString())
        + ") EXCEPT ALL SELECT * FROM read_parquet(" + quote(ours.toString()) + "))");
    if (oursRows != baselineRows || onlyOurs != 0 || onlyBaseline != 0) {
      throw new IllegalStateException("Cannot compare " + NAME + ": ours and the baseline differ: rows " + oursRows
          + " vs " + baselineRows + ", " + onlyOurs + " rows only in ours, " + onlyBaseline + " only in the baseline");
    }
    if (i > 0) {
      Files.deleteIfExists(out.resolve("ours-" + (i - 1) + ".parquet"));
      Files.deleteIfExists(out.resolve("baseline-" + (i - 1) + ".parquet"));
    }
  }

  private static String matched(Connection duck, Path file) throws SQLException {
    return "labels with a feature value within the TTL: " + scalar(duck, "SELECT count(ev__feature_b) FROM read_parquet("
        + quote(file.toString()) + ")");
  }

  private static long count(Connection duck, Path file) throws SQLException {
    return scalar(duck, "SELECT count(*) FROM read_parquet(" + quote(file.toString()) + ")");
  }

  private static long scalar(Connection duck, String sql) throws SQLException {
    try (Statement statement = duck.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
