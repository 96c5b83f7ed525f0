package dev.featurestore.benchmarks;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one benchmark by name: {@code Benchmarks <name> [key=value ...]}. Each {@code key=value}
 * is set as a system property, so {@code ingest rows=100000 iterations=1} equals
 * {@code -Drows=100000 -Diterations=1 ... ingest}.
 *
 * <p>Each benchmark measures our path and its baseline in the same process, alternating, after a
 * warm-up, and prints as its last line
 * {@code RESULT <name> ours=<value> baseline=<value> unit=<unit> ratio=<ours/baseline>}.
 */
public final class Benchmarks {
  /** Compiled only with the Maven profile {@code spark} (benchmarks/run builds it for spark-* names). */
  private static final String SPARK_TRAINING_SET = "spark-training-set";

  private static final Map<String, String> BENCHMARKS = new TreeMap<>(Map.ofEntries(
      Map.entry(CdcBenchmarks.THROUGHPUT, "events/s into a CDC change log (WAL on, 10k batches) vs Iceberg's generic writer (higher is better)"),
      Map.entry(CdcBenchmarks.FRESHNESS, "p99 ms from createEntry to visible, 1 s flush interval, vs a periodic generic-writer append (lower is better)"),
      Map.entry(CdcSoakBenchmark.NAME, "p99 ms of a flush in the last 1,000 of 20,000 commits (100 updates over 1M documents, both tables, maintenance on) vs the first 1,000 (target <= 1.2)"),
      Map.entry(CdcUpsertBenchmarks.UPSERT_READ, "ms to full-scan a 1M-document current state after 100k updates (deletion vectors applied) vs the same rows written once, both through the library's query reader (IcebergGenerics pair printed as a note; target <= 1.2)"),
      Map.entry(CdcUpsertBenchmarks.UPSERT_READ_COMPACTED, "cdc-upsert-read after compaction, same readers (target <= 1.05)"),
      Map.entry(CdcUpsertBenchmarks.UPSERT_WRITE, "ms to commit a 10k-update batch into a 10M-document current state vs appending 10k rows to a plain table (target <= 3)"),
      Map.entry(IngestBenchmark.NAME, "rows/s of a 5M-row synthetic ingest vs Iceberg's generic writer (higher is better)"),
      Map.entry(FileIngestBenchmarks.CSV, "ms to ingest a 5M-row CSV into a day-partitioned table vs DuckDB's COPY ... PARTITION_BY of the same file (target <= 1.3)"),
      Map.entry(FileIngestBenchmarks.PARQUET, "ms to ingest a 5M-row Parquet file into a day-partitioned table vs DuckDB's COPY ... PARTITION_BY (target <= 1.3)"),
      Map.entry(CommitBenchmark.NAME, "ms per 100-row append commit vs Iceberg's generic writer + newAppend (lower is better)"),
      Map.entry(CompactionReadBenchmark.NAME, "ms per full scan of 1,000 small appends after compaction vs one append (target <= 1.2)"),
      Map.entry(ExpireBenchmark.NAME, "ms to expire 1,000 snapshots vs Iceberg's expireSnapshots (prints bytes freed)"),
      Map.entry(IngestS3Benchmark.NAME, "rows/s of a 5M-row synthetic ingest into a bucket on in-process s3proxy vs local disk (higher is better)"),
      Map.entry(UploadBenchmark.NAME, "MB/s of a 256 MB raw upload (child JVM, -Xmx256m) vs the SDK's putObject of the file (higher is better)"),
      Map.entry(LookupBenchmark.NAME, "p50 ms of a warm single-key latest-row lookup on 10M rows vs a full scan with the same filter (target p50 <= 5, p99 <= 15)"),
      Map.entry(OnlineBenchmarks.GET, "p99 ms of a warm single-key online-view read on 10M entities vs the Iceberg point lookup (target p99 <= 1 ms, ratio <= 0.1)"),
      Map.entry(OnlineBenchmarks.BATCH, "p99 ms of a 100-key online-view batch on 10M entities vs the point lookup's getAll (target p99 <= 5 ms)"),
      Map.entry(OnlineBenchmarks.MATERIALIZE, "rows/s of a full online-view materialization of 10M rows vs reading them (target >= 500k/s; prints the incremental time after a 10k-row append)"),
      Map.entry(TieringBenchmark.NAME, "ms per full scan of a table moved to a cold bucket (warm cold cache) vs the same rows hot on local disk (target <= 1.2)"),
      Map.entry(PruningBenchmark.NAME, "ms to read one day of a 365-day table (partition-pruned) vs an unpruned scan (prints files read)"),
      Map.entry(SqlBenchmarks.LOCAL, "ms of a GROUP BY over a 10M-row snapshot through the DuckDB adapter vs DuckDB's own read_parquet (target <= 1.25)"),
      Map.entry(SqlBenchmarks.S3_WARM, "the same GROUP BY on a bucket on in-process s3proxy, warm file cache, vs local read_parquet (target <= 1.25)"),
      Map.entry(SqlBenchmarks.VS_ICEBERG, "the same GROUP BY through the adapter vs IcebergGenerics + Java aggregation (prints how many times faster)"),
      Map.entry(TrainingSetBenchmark.NAME, "ms of a 1M-label x 5M-row point-in-time training set to Parquet vs a hand-written DuckDB ASOF JOIN (target <= 1.5)"),
      Map.entry(SPARK_TRAINING_SET, "ms of a 200k-label x 1M-row training set on Spark local[2] vs the embedded DuckDB engine, one definition (built with the spark profile)")));

  private Benchmarks() {}

  /** Runs a benchmark of the spark profile's sources, which the default build does not compile. */
  private static void runSparkBenchmark(String className) throws Exception {
    Class<?> type;
    try {
      type = Class.forName(className);
    } catch (ClassNotFoundException e) {
      System.err.println("Cannot run " + className + ": not built: run it with benchmarks/run, which builds the spark profile");
      System.exit(2);
      return;
    }
    java.lang.reflect.Method run = type.getDeclaredMethod("run");
    run.setAccessible(true);
    try {
      run.invoke(null);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("list")) {
      usage();
      System.exit(args.length == 0 ? 2 : 0);
    }
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        System.err.println("Cannot parse setting: expected key=value: " + args[i]);
        System.exit(2);
      }
      System.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    // keep Iceberg's INFO logging off stderr unless asked for
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    String name = args[0].toLowerCase(Locale.ROOT);
    switch (name) {
      case IngestBenchmark.NAME -> IngestBenchmark.run();
      case FileIngestBenchmarks.CSV -> FileIngestBenchmarks.csv();
      case FileIngestBenchmarks.PARQUET -> FileIngestBenchmarks.parquet();
      case CommitBenchmark.NAME -> CommitBenchmark.run();
      case CompactionReadBenchmark.NAME -> CompactionReadBenchmark.run();
      case ExpireBenchmark.NAME -> ExpireBenchmark.run();
      case IngestS3Benchmark.NAME -> IngestS3Benchmark.run();
      case UploadBenchmark.NAME -> UploadBenchmark.run();
      case CdcBenchmarks.THROUGHPUT -> CdcBenchmarks.throughput();
      case CdcBenchmarks.FRESHNESS -> CdcBenchmarks.freshness();
      case CdcUpsertBenchmarks.UPSERT_READ -> CdcUpsertBenchmarks.upsertRead(false);
      case CdcUpsertBenchmarks.UPSERT_READ_COMPACTED -> CdcUpsertBenchmarks.upsertRead(true);
      case CdcUpsertBenchmarks.UPSERT_WRITE -> CdcUpsertBenchmarks.upsertWrite();
      case CdcSoakBenchmark.NAME -> CdcSoakBenchmark.run();
      case LookupBenchmark.NAME -> LookupBenchmark.run();
      case OnlineBenchmarks.GET -> OnlineBenchmarks.get();
      case OnlineBenchmarks.BATCH -> OnlineBenchmarks.batch();
      case OnlineBenchmarks.MATERIALIZE -> OnlineBenchmarks.materialize();
      case PruningBenchmark.NAME -> PruningBenchmark.run();
      case TieringBenchmark.NAME -> TieringBenchmark.run();
      case SqlBenchmarks.LOCAL -> SqlBenchmarks.local();
      case SqlBenchmarks.S3_WARM -> SqlBenchmarks.s3Warm();
      case SqlBenchmarks.VS_ICEBERG -> SqlBenchmarks.vsIcebergReader();
      case TrainingSetBenchmark.NAME -> TrainingSetBenchmark.run();
      case SPARK_TRAINING_SET -> runSparkBenchmark("dev.featurestore.benchmarks.SparkTrainingSetBenchmark");
      default -> {
        System.err.println("Cannot run benchmark: unknown name: " + args[0]);
        usage();
        System.exit(2);
      }
    }
  }

  private static void usage() {
    System.err.println("usage: benchmarks/run <name> [key=value ...]");
    System.err.println("benchmarks:");
    BENCHMARKS.forEach((name, what) -> System.err.printf(Locale.ROOT, "  %-22s %s%n", name, what));
    System.err.println("settings: rows=, engine=auto|java (ingest-csv, ingest-parquet), mb=, heap=, partsize=, threshold= (upload), events=, docs=, updates=, seconds=, rate=, lags=<prefix> (cdc-freshness: per-entry lag CSVs), days=, buckets=, lookups= (lookup, online-get), baselineLookups=, batches=, baselineBatches=, batchSize= (online-batch), append= (online-materialize), rowsPerDay= (pruning), commits= (tiering), labels=, features=, ttlHours= (training-set), threads=, memoryLimit= (sql-*, training-set), warmups=, iterations=, seed=, only=ours|baseline, bench.dir=");
  }
}
