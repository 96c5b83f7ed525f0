package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TrainingSetDefinition;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.spark.SparkExport;
import dev.featurestore.spark.SparkFeatureStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * {@code spark-training-set}: the {@code training-set} benchmark's data ({@code -Dlabels=}
 * (200,000) labels against {@code -Dfeatures=} (1,000,000) synthetic feature rows, a
 * {@code -DttlHours=} (12) TTL) and one {@link TrainingSetDefinition}, written to Parquet:
 *
 * <ul>
 *   <li>ours: Spark {@code local[2]} ({@code SparkFeatureStore.trainingSet(definition).exportParquet(dir)});
 *   <li>baseline: the embedded DuckDB engine ({@code sql.trainingSet(definition).exportParquet(file)}).
 * </ul>
 *
 * Every round checks that both outputs hold the same rows. On one small machine Spark is expected
 * to be slower (planning, shuffles, task scheduling): the ratio shows the price of the move, which
 * a cluster pays back once the work no longer fits one machine. Built only by
 * {@code benchmarks/run spark-training-set} (Maven profile {@code spark}). Settings: {@code -Dwarmups=}
 * (1), {@code -Diterations=} (3), {@code -Dthreads=} (2, DuckDB), {@code -DmemoryLimit=} (2GB), {@code -Dseed=}.
 */
final class SparkTrainingSetBenchmark {
  static final String NAME = "spark-training-set";

  private SparkTrainingSetBenchmark() {}

  static void run() throws Exception {
    long labelRows = Harness.longSetting("labels", 200_000L);
    long featureRows = Harness.longSetting("features", 1_000_000L);
    long ttlHours = Harness.longSetting("ttlHours", 12);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    long seed = Harness.longSetting("seed", 42);
    SqlBenchmarks.Settings settings = new SqlBenchmarks.Settings(featureRows, warmups, iterations,
        Harness.intSetting("threads", 2), System.getProperty("memoryLimit", "2GB"), seed);
    Harness.progress("%s: labels=%d features=%d ttl=%dh warmups=%d iterations=%d", NAME, labelRows, featureRows,
        ttlHours, warmups, iterations);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable labels = store.createTable(TableDefinition.builder(TableId.of("bench", "labels"),
          TrainingSetBenchmark.labelSchema()).build());
      labels.ingest().synthetic(labelRows, seed + 1).commit();
      FeatureTable features = store.createTable(IngestBenchmark.definition(TableId.of("bench", "events")));
      features.ingest().synthetic(featureRows, seed).commit();
      TrainingSetDefinition definition = TrainingSetDefinition.builder()
          .labels(labels.query(), "entity_id", "label_time")
          .features("ev", features.query(), "entity_id", "event_time", Duration.ofHours(ttlHours), "feature_a", "feature_b")
          .build();
      Path out = Files.createDirectories(dir.resolve("out"));
      SparkSession session = SparkFeatureStore.configure(SparkSession.builder().master("local[2]")
              .appName(NAME).config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "8"),
          store.config()).getOrCreate();
      try (SqlEngine sql = SqlBenchmarks.engine(store, settings); Connection duck = SqlBenchmarks.plainDuck(settings)) {
        SparkFeatureStore spark = SparkFeatureStore.attach(session, store);
        long[] rows = new long[2];
        Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, i -> {
          Path target = out.resolve("ours-" + i);
          long t = System.nanoTime();
          SparkExport export = spark.trainingSet(definition).exportParquet(target.toString());
          double millis = Harness.elapsedNanos(t) / 1e6;
          rows[0] = export.rows();
          checkSame(duck, out, i);
          return millis;
        }, i -> {
          long t = System.nanoTime();
          rows[1] = sql.trainingSet(definition).exportParquet(out.resolve("baseline-" + i + ".parquet")).rows();
          double millis = Harness.elapsedNanos(t) / 1e6;
          checkSame(duck, out, i);
          return millis;
        });
        Harness.note("%s: %d rows on both sides", NAME, rows[0]);
        Harness.result(NAME, medians, "ms");
      } finally {
        session.stop();
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** Once both sides of round {@code i} wrote: the same rows (as multisets). */
  private static void checkSame(Connection duck, Path out, int i) throws Exception {
    Path ours = out.resolve("ours-" + i);
    Path baseline = out.resolve("baseline-" + i + ".parquet");
    if (!Files.exists(ours) || !Files.exists(baseline)) {
      return;
    }
    String a = "read_parquet('" + ours + "/*.parquet')";
    String b = "read_parquet('" + baseline + "')";
    long differ = scalar(duck, "SELECT (SELECT count(*) FROM (SELECT * FROM " + a + " EXCEPT ALL SELECT * FROM " + b
        + ")) + (SELECT count(*) FROM (SELECT * FROM " + b + " EXCEPT ALL SELECT * FROM " + a + "))");
    if (differ != 0) {
      throw new IllegalStateException("Cannot compare " + NAME + ": Spark's and DuckDB's training sets differ in "
          + differ + " rows (round " + i + ")");
    }
  }

  private static long scalar(Connection duck, String sql) throws Exception {
    try (Statement statement = duck.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
