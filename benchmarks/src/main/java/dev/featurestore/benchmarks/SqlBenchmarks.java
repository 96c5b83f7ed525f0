package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.Row;
import dev.featurestore.TableId;
import dev.featurestore.duckdb.DuckQueries;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.duckdb.SqlResult;
import dev.featurestore.duckdb.SqlStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The SQL benchmarks: one GROUP BY ({@code entity_id, count(*), sum(feature_a), max(feature_b)},
 * 100,000 groups) over a {@code -Drows=} (10,000,000) row snapshot of feature_events (partitioned
 * by day, written once per run by the synthetic ingest), through the DuckDB adapter
 * ({@code sql.query(...).table("ev", table.query())}, every result row read as a
 * {@link Row}) against a baseline in the same process. Every round checks that both sides gave
 * the same answer ({@link GroupAnswer}).
 *
 * <ul>
 *   <li>{@code sql-local}: local-disk store; baseline: DuckDB's own {@code read_parquet([...])}
 *       over the same data files, hand-written, on a plain in-memory DuckDB with the same threads
 *       and memory limit, rows read with {@code getLong/getDouble}. Target ratio <= 1.25.
 *   <li>{@code sql-s3-warm}: the store's warehouse is a bucket on in-process s3proxy (loopback);
 *       the engine's file cache is warm (the warm-up round fills it). Baseline: the same local
 *       {@code read_parquet} over the same files (s3proxy's filesystem copies). Target <= 1.25.
 *   <li>{@code sql-vs-iceberg-reader}: local store; baseline: Iceberg's generic reader
 *       ({@code IcebergGenerics}) with the aggregation in Java. Prints how many times faster the
 *       adapter is.
 * </ul>
 *
 * Settings: {@code -Drows=}, {@code -Dwarmups=} (1),
 * {@code -Diterations=} (5; 3 for the Iceberg reader), {@code -Dthreads=} (2, DuckDB threads on
 * both sides), {@code -DmemoryLimit=} (2GB), {@code -Dseed=}.
 */
final class SqlBenchmarks {
  static final String LOCAL = "sql-local";
  static final String S3_WARM = "sql-s3-warm";
  static final String VS_ICEBERG = "sql-vs-iceberg-reader";

  private SqlBenchmarks() {}

  /** The aggregation both sides run, over {@code relation}. */
  static String groupBy(String relation) {
    return "SELECT entity_id, count(*) AS n, sum(feature_a) AS a, max(feature_b) AS b FROM " + relation
        + " GROUP BY entity_id";
  }

  static void local() throws Exception {
    Settings settings = Settings.read(1, 5);
    Path dir = Harness.tempDir(LOCAL);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = build(store, settings);
      List<String> files = dataFiles(table, SqlBenchmarks::localFile);
      try (SqlEngine sql = engine(store, settings); Connection duck = plainDuck(settings)) {
        Harness.result(LOCAL, compare(LOCAL, settings, sql, table, files, duck), "ms");
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  static void s3Warm() throws Exception {
    Settings settings = Settings.read(1, 5);
    Path dir = Harness.tempDir(S3_WARM);
    try (LoopbackS3 s3 = new LoopbackS3(dir.resolve("s3"));
        FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).objectStorage(s3.storage()).build()) {
      FeatureTable table = build(store, settings);
      // s3proxy's filesystem store keeps each object as a plain file: the baseline reads those
      Path bucket = dir.resolve("s3").resolve("blobs").resolve(LoopbackS3.BUCKET);
      List<String> files = dataFiles(table, location -> {
        URI uri = URI.create(location);
        Path file = bucket.resolve(uri.getPath().substring(1));
        if (!Files.isRegularFile(file)) {
          throw new IllegalStateException("Cannot find s3proxy's copy of a data file: " + file);
        }
        return file.toString();
      });
      try (SqlEngine sql = engine(store, settings); Connection duck = plainDuck(settings)) {
        Harness.Medians medians = compare(S3_WARM, settings, sql, table, files, duck);
        Harness.note("%s: cache %s", S3_WARM, sql.cacheStats());
        Harness.result(S3_WARM, medians, "ms");
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  static void vsIcebergReader() throws Exception {
    Settings settings = Settings.read(1, 3);
    Path dir = Harness.tempDir(VS_ICEBERG);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = build(store, settings);
      Table iceberg = table.unwrap(Table.class);
      try (SqlEngine sql = engine(store, settings)) {
        GroupAnswer[] answers = new GroupAnswer[2];
        // CPU time of the whole process (DuckDB's native threads included): on a shared machine a
        // two-thread engine is starved more than a one-thread reader, so wall time alone undersells it
        List<Double> oursCpu = new ArrayList<>();
        List<Double> baselineCpu = new ArrayList<>();
        Harness.Medians medians = Harness.alternate(VS_ICEBERG, "ms", settings.warmups, settings.iterations, i -> {
          long cpu = processCpuNanos();
          long start = System.nanoTime();
          answers[0] = ours(sql, table, null);
          double millis = Harness.elapsedNanos(start) / 1e6;
          oursCpu.add((processCpuNanos() - cpu) / 1e6);
          return millis;
        }, i -> {
          long cpu = processCpuNanos();
          long start = System.nanoTime();
          answers[1] = icebergReader(iceberg);
          double millis = Harness.elapsedNanos(start) / 1e6;
          baselineCpu.add((processCpuNanos() - cpu) / 1e6);
          if (answers[0] != null) {
            answers[0].checkSame(VS_ICEBERG, answers[1]);
          }
          return millis;
        });
        checkBoth(VS_ICEBERG, answers);
        Harness.note("%s: the adapter is %.1fx faster than IcebergGenerics + Java aggregation (%.0f ms vs %.0f ms)",
            VS_ICEBERG, medians.baseline() / medians.ours(), medians.ours(), medians.baseline());
        double oursCpuMedian = median(oursCpu, settings.warmups());
        double baselineCpuMedian = median(baselineCpu, settings.warmups());
        Harness.note("%s: CPU time (process, measured rounds, median): adapter %.0f ms, IcebergGenerics %.0f ms: %.1fx less",
            VS_ICEBERG, oursCpuMedian, baselineCpuMedian, baselineCpuMedian / oursCpuMedian);
        Harness.result(VS_ICEBERG, medians, "ms");
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Median of the values after the first {@code skip} (the warm-ups). */
  private static double median(List<Double> values, int skip) {
    return Harness.median(values.subList(Math.min(skip, values.size()), values.size()).stream()
        .mapToDouble(Double::doubleValue).toArray());
  }

  /** Settings shared by the SQL benchmarks. */
  record Settings(long rows, int warmups, int iterations, int threads, String memoryLimit, long seed) {
    static Settings read(int defaultWarmups, int defaultIterations) {
      return new Settings(Harness.longSetting("rows", 10_000_000L), Harness.intSetting("warmups", defaultWarmups),
          Harness.intSetting("iterations", defaultIterations), Harness.intSetting("threads", 2),
          System.getProperty("memoryLimit", "2GB"), Harness.longSetting("seed", 42));
    }
  }

  /** The feature_events table with {@code rows} synthetic rows, written once per run. */
  static FeatureTable build(FeatureStore store, Settings settings) {
    FeatureTable table = store.createTable(IngestBenchmark.definition(TableId.of("bench", "sql_events")));
    long start = System.nanoTime();
    IngestResult result = table.ingest().synthetic(settings.rows(), settings.seed()).commit();
    Harness.note("data: %d rows in %d files, %d bytes, written in %.1f s", result.rows(),
        table.stats().dataFiles(), table.stats().dataBytes(), Harness.elapsedNanos(start) / 1e9);
    return table;
  }

  static SqlEngine engine(FeatureStore store, Settings settings) {
    return DuckQueries.builder(store).threads(settings.threads()).memoryLimit(settings.memoryLimit()).build();
  }

  /** A plain in-memory DuckDB, as a user would open it, with the engine's threads and memory limit. */
  static Connection plainDuck(Settings settings) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("threads", Integer.toString(settings.threads()));
    properties.setProperty("memory_limit", settings.memoryLimit());
    return DriverManager.getConnection("jdbc:duckdb:", properties);
  }

  /** The current snapshot's data files, as {@code toLocal} maps their locations. */
  static List<String> dataFiles(FeatureTable table, Function<String, String> toLocal) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty()) {
          throw new IllegalStateException("Cannot run the baseline: the table has delete files");
        }
        files.add(toLocal.apply(task.file().location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  static String localFile(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)).toString() : location;
  }

  static String parquetList(List<String> files) {
    return files.stream().map(f -> "'" + f.replace("'", "''") + "'").collect(Collectors.joining(", ", "[", "]"));
  }

  private static Harness.Medians compare(String name, Settings settings, SqlEngine sql, FeatureTable table, List<String> files,
      Connection duck) throws Exception {
    GroupAnswer[] answers = new GroupAnswer[2];
    SqlStats[] lastStats = new SqlStats[1];
    List<double[]> phases = new ArrayList<>();
    String baselineSql = groupBy("read_parquet(" + parquetList(files) + ")");
    // CPU time of the whole process per round (DuckDB's native threads included): less sensitive to
    // other work on a shared machine than wall time, so a second view of the same comparison
    List<Double> oursCpu = new ArrayList<>();
    List<Double> baselineCpu = new ArrayList<>();
    Harness.Medians medians = Harness.alternate(name, "ms", settings.warmups(), settings.iterations(), i -> {
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      answers[0] = ours(sql, table, lastStats);
      double millis = Harness.elapsedNanos(start) / 1e6;
      oursCpu.add((processCpuNanos() - cpu) / 1e6);
      SqlStats stats = lastStats[0];
      phases.add(new double[] {millis, stats.planningTime().toNanos() / 1e6, stats.fetchTime().toNanos() / 1e6,
          stats.executionTime().toNanos() / 1e6});
      if (answers[1] != null) {
        answers[0].checkSame(name, answers[1]);
      }
      return millis;
    }, i -> {
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      answers[1] = baseline(duck, baselineSql);
      double millis = Harness.elapsedNanos(start) / 1e6;
      baselineCpu.add((processCpuNanos() - cpu) / 1e6);
      if (answers[0] != null) {
        answers[0].checkSame(name, answers[1]);
      }
      return millis;
    });
    checkBoth(name, answers);
    if (!phases.isEmpty()) {
      double[] last = phases.get(phases.size() - 1);
      Harness.note("%s: ours, last round: %.1f ms = planning %.1f + fetch %.1f + execution and reading rows %.1f "
          + "(rest: parse check, views, connection)", name, last[0], last[1], last[2], last[3]);
    }
    if (!oursCpu.isEmpty() && !baselineCpu.isEmpty()) {
      double oursCpuMedian = median(oursCpu, settings.warmups());
      double baselineCpuMedian = median(baselineCpu, settings.warmups());
      // the JVM counts process CPU time in 10 ms ticks here: the ratio of the sums is finer than the medians'
      double oursCpuSum = oursCpu.subList(settings.warmups(), oursCpu.size()).stream().mapToDouble(d -> d).sum();
      double baselineCpuSum = baselineCpu.subList(settings.warmups(), baselineCpu.size()).stream().mapToDouble(d -> d).sum();
      Harness.note("%s: CPU time (process, measured rounds): medians ours %.0f ms, baseline %.0f ms; ratio of the sums %.3f",
          name, oursCpuMedian, baselineCpuMedian, oursCpuSum / baselineCpuSum);
    }
    return medians;
  }

  /** Both sides ran (unless -Donly) and agreed; prints the answer. */
  static void checkBoth(String name, GroupAnswer[] answers) {
    if (answers[0] != null && answers[1] != null) {
      answers[0].checkSame(name, answers[1]);
      Harness.note("%s: same answer on both sides: %s", name, answers[0]);
    } else {
      GroupAnswer one = answers[0] != null ? answers[0] : answers[1];
      Harness.note("%s: one side only: %s", name, one);
    }
  }

  /** Our path: the GROUP BY through the adapter, every row read as a {@link Row}. */
  static GroupAnswer ours(SqlEngine sql, FeatureTable table, SqlStats[] stats) {
    GroupAnswer answer = new GroupAnswer();
    try (SqlResult result = sql.query(groupBy("ev")).table("ev", table.query()).execute()) {
      for (Row row : result) {
        answer.add((Long) row.get(0), ((Number) row.get(1)).longValue(), (Double) row.get(2), (Double) row.get(3));
      }
      if (stats != null) {
        stats[0] = result.stats();
      }
    }
    return answer;
  }

  /** The baseline: the same GROUP BY over {@code read_parquet} on a plain connection. */
  static GroupAnswer baseline(Connection duck, String sql) throws SQLException {
    GroupAnswer answer = new GroupAnswer();
    try (Statement statement = duck.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      while (rs.next()) {
        long entity = rs.getLong(1);
        long count = rs.getLong(2);
        double a = rs.getDouble(3);
        Double sumA = rs.wasNull() ? null : a;
        double b = rs.getDouble(4);
        Double maxB = rs.wasNull() ? null : b;
        answer.add(entity, count, sumA, maxB);
      }
    }
    return answer;
  }

  /** The other baseline: Iceberg's generic reader and the aggregation in Java. */
  static GroupAnswer icebergReader(Table table) throws IOException {
    table.refresh();
    Map<Long, double[]> groups = new HashMap<>(); // count, sum a, any a (0/1), max b, any b (0/1)
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).select("entity_id", "feature_a", "feature_b")
        .build()) {
      for (Record record : records) {
        double[] g = groups.computeIfAbsent((Long) record.getField("entity_id"),
            k -> new double[] {0, 0, 0, Double.NEGATIVE_INFINITY, 0});
        g[0]++;
        Double a = (Double) record.getField("feature_a");
        if (a != null) {
          g[1] += a;
          g[2] = 1;
        }
        Double b = (Double) record.getField("feature_b");
        if (b != null) {
          g[3] = Math.max(g[3], b);
          g[4] = 1;
        }
      }
    }
    GroupAnswer answer = new GroupAnswer();
    groups.forEach((entity, g) -> answer.add(entity, (long) g[0], g[2] == 1 ? g[1] : null, g[4] == 1 ? g[3] : null));
    return answer;
  }
}
