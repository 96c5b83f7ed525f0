package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TableStats;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;

/**
 * {@code ingest}: rows/s of one large synthetic ingest.
 *
 * <ul>
 *   <li>ours: {@code table.ingest().synthetic(rows, seed).commit()};
 *   <li>baseline: the same number of feature_events rows from the same distribution, written with
 *       Iceberg's generic writer (fanout, one file per partition) and one append.
 * </ul>
 *
 * <p>Both tables have the same definition (feature_events, partitioned by {@code day(event_time)},
 * the store's table defaults) and live in the same store; each trial creates a fresh table and
 * drops it (with its files) afterwards. The time is wall time around the whole ingest, row
 * generation included on both sides. Settings: {@code -Drows=} (default 5,000,000),
 * {@code -Dwarmups=} (1), {@code -Diterations=} (3), {@code -Dseed=}.
 */
final class IngestBenchmark {
  static final String NAME = "ingest";

  private IngestBenchmark() {}

  static TableDefinition definition(TableId id) {
    return TableDefinition.builder(id, SyntheticFeatures.schema())
        .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
        .build();
  }

  static void run() throws Exception {
    long rows = Harness.longSetting("rows", 5_000_000);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    long seed = Harness.longSetting("seed", 42);
    Harness.progress("ingest: rows=%d warmups=%d iterations=%d", rows, warmups, iterations);

    Path dir = Harness.tempDir(NAME);
    long[] oursShape = new long[2];
    long[] baselineShape = new long[2];
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      Harness.Trial ours = i -> {
        TableId id = TableId.of("bench", "ingest_ours_" + i);
        FeatureTable table = store.createTable(definition(id));
        System.gc();
        long start = System.nanoTime();
        IngestResult result = table.ingest().synthetic(rows, seed + i).commit();
        long nanos = Harness.elapsedNanos(start);
        if (result.rows() != rows) {
          throw new IllegalStateException("Cannot measure ingest: expected " + rows + " rows, got: " + result.rows());
        }
        record(table, oursShape);
        store.dropTable(id, true);
        return rows * 1e9 / nanos;
      };
      Harness.Trial baseline = i -> {
        TableId id = TableId.of("bench", "ingest_baseline_" + i);
        FeatureTable table = store.createTable(definition(id));
        Table iceberg = table.unwrap(Table.class);
        SyntheticRows generator = new SyntheticRows(seed + i, Instant.now());
        System.gc();
        long start = System.nanoTime();
        IcebergWriter.Appended appended = IcebergWriter.append(iceberg, rows, generator::fill);
        long nanos = Harness.elapsedNanos(start);
        if (appended.rows() != rows) {
          throw new IllegalStateException("Cannot measure ingest: expected " + rows + " rows, got: " + appended.rows());
        }
        record(table, baselineShape);
        store.dropTable(id, true);
        return rows * 1e9 / nanos;
      };
      Harness.Medians medians = Harness.alternate(NAME, "rows/s", warmups, iterations, ours, baseline);
      if (Harness.runs("ours")) {
        Harness.note("ingest ours:     rows=%d files=%d bytes=%d", rows, oursShape[0], oursShape[1]);
      }
      if (Harness.runs("baseline")) {
        Harness.note("ingest baseline: rows=%d files=%d bytes=%d", rows, baselineShape[0], baselineShape[1]);
      }
      Harness.result(NAME, medians, "rows/s");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** Files and bytes of the table's current snapshot, from its metadata. */
  private static void record(FeatureTable table, long[] shape) {
    TableStats stats = table.stats();
    shape[0] = stats.dataFiles();
    shape[1] = stats.dataBytes();
  }
}
