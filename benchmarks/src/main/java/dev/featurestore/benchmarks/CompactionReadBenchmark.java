package dev.featurestore.benchmarks;

import dev.featurestore.CompactionResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.SplittableRandom;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;

/**
 * {@code compaction-read}: full-scan time of a table built by many small appends, after
 * compaction, vs the same rows written in one append.
 *
 * <ul>
 *   <li>ours: a table built by {@code -Dappends=} (1,000) appends of {@code -DrowsPerAppend=}
 *       (100) rows each, then compacted with {@code table.maintenance().compact()} and its
 *       manifests rewritten with {@code rewriteManifests()} (as a maintenance plan does);
 *   <li>baseline: the same rows written with one append.
 * </ul>
 *
 * <p>Both are written straight through Iceberg's generic writer (unpartitioned feature_events)
 * and read with {@code table.query().execute()}, every row and column. Before compaction it
 * prints the same ratio as a note. Target: ratio <= 1.2 after compaction. Settings: {@code
 * -Dwarmups=} (1), {@code -Diterations=} (5).
 */
final class CompactionReadBenchmark {
  static final String NAME = "compaction-read";

  private CompactionReadBenchmark() {}

  static void run() throws Exception {
    int appends = Harness.intSetting("appends", 1000);
    int rowsPerAppend = Harness.intSetting("rowsPerAppend", 100);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 5);
    Harness.progress("%s: appends=%d rowsPerAppend=%d warmups=%d iterations=%d", NAME, appends, rowsPerAppend,
        warmups, iterations);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable small = store.createTable(TableDefinition.builder(TableId.of("bench", "many_appends"),
          SyntheticFeatures.schema()).build());
      FeatureTable one = store.createTable(TableDefinition.builder(TableId.of("bench", "one_append"),
          SyntheticFeatures.schema()).build());
      long start = System.nanoTime();
      Table smallTable = small.unwrap(Table.class);
      for (int i = 0; i < appends; i++) {
        IcebergWriter.append(smallTable, rowsPerAppend, filler(i * (long) rowsPerAppend));
        if ((i + 1) % 100 == 0) {
          Harness.progress("%s: %d/%d appends", NAME, i + 1, appends);
        }
      }
      Harness.progress("%s: %d appends in %.1f s", NAME, appends, Harness.elapsedNanos(start) / 1e9);
      Fill all = new Fill(0);
      IcebergWriter.append(one.unwrap(Table.class), (long) appends * rowsPerAppend, record -> all.accept(record));
      small.refresh();
      one.refresh();

      Harness.Medians before = Harness.alternate(NAME + " (before compaction)", "ms", warmups, iterations,
          i -> scanMillis(small), i -> scanMillis(one));
      Harness.note("%s before compaction: many-appends=%.1f ms one-append=%.1f ms ratio=%.3f (%d data files)", NAME,
          before.ours(), before.baseline(), before.ours() / before.baseline(), appends);

      long compactStart = System.nanoTime();
      CompactionResult compacted = small.maintenance().compact().execute();
      Harness.note("%s compaction: %d files -> %d files, %d rows, in %.0f ms", NAME, compacted.rewrittenDataFiles(),
          compacted.addedDataFiles(), compacted.rows(), Harness.elapsedNanos(compactStart) / 1e6);
      // the rewrite leaves one manifest per append (now holding only deleted entries) until the
      // manifests are rewritten; planning reads them all, so maintenance does both
      long rewriteStart = System.nanoTime();
      RewriteManifestsResult manifests = small.maintenance().rewriteManifests();
      Harness.note("%s manifest rewrite: %d -> %d data manifests in %.0f ms", NAME, manifests.manifestsBefore(),
          manifests.manifestsAfter(), Harness.elapsedNanos(rewriteStart) / 1e6);

      Harness.Medians after = Harness.alternate(NAME, "ms", warmups, iterations,
          i -> scanMillis(small), i -> scanMillis(one));
      Harness.result(NAME, after, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static double scanMillis(FeatureTable table) {
    long start = System.nanoTime();
    long rows = 0;
    double sum = 0;
    try (QueryResult result = table.query().execute()) {
      for (Row row : result) {
        rows++;
        Object a = row.get("feature_a");
        if (a != null) {
          sum += (Double) a;
        }
      }
    }
    if (rows == 0 || Double.isNaN(sum)) {
      throw new IllegalStateException("Cannot scan: no rows");
    }
    return Harness.elapsedNanos(start) / 1e6;
  }

  private static java.util.function.Consumer<Record> filler(long firstId) {
    return new Fill(firstId)::accept;
  }

  /** Deterministic rows: entity ids from {@code next}, features from a seeded generator. */
  private static final class Fill {
    private static final OffsetDateTime TIME = OffsetDateTime.parse("2026-01-01T00:00:00Z");
    private final SplittableRandom random;
    private long next;

    Fill(long firstId) {
      this.next = firstId;
      this.random = new SplittableRandom(firstId);
    }

    void accept(Record record) {
      long id = next++;
      record.setField("entity_id", id);
      record.setField("event_time", TIME.plusSeconds(id % 86_400));
      record.setField("feature_a", random.nextDouble());
      record.setField("feature_b", random.nextDouble());
    }
  }
}
