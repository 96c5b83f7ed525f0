package dev.featurestore.benchmarks;

import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.stream.Stream;
import org.apache.iceberg.Table;

/**
 * {@code expire}: time to expire {@code -Dsnapshots=} (1,000) snapshots, keeping the last one.
 *
 * <ul>
 *   <li>ours: {@code table.maintenance().expireSnapshots().retainLast(1).execute()} (reachability
 *       cleanup, every deleted file sized and counted);
 *   <li>baseline: Iceberg's own {@code table.expireSnapshots().expireOlderThan(now).retainLast(1)
 *       .commit()} on an identical table (its default, incremental file cleanup).
 * </ul>
 *
 * <p>Each round builds two fresh tables with one small append per snapshot (not timed), then
 * times the expiry; every tenth append replaces the table's rows (an overwrite), so data files
 * become unreachable too. Prints the files and bytes ours freed and the bytes left under each
 * table. Settings: {@code -Dwarmups=} (0), {@code -Diterations=} (1), {@code -DrowsPerAppend=} (10).
 */
final class ExpireBenchmark {
  static final String NAME = "expire";

  private ExpireBenchmark() {}

  static void run() throws Exception {
    int snapshots = Harness.intSetting("snapshots", 1000);
    int rowsPerAppend = Harness.intSetting("rowsPerAppend", 10);
    int warmups = Harness.intSetting("warmups", 0);
    int iterations = Harness.intSetting("iterations", 1);
    Harness.progress("%s: snapshots=%d rowsPerAppend=%d warmups=%d iterations=%d", NAME, snapshots, rowsPerAppend,
        warmups, iterations);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      int[] round = {0};
      Harness.Trial ours = i -> {
        FeatureTable table = build(store, "ours_" + (round[0]++), snapshots, rowsPerAppend);
        long start = System.nanoTime();
        ExpireResult result = table.maintenance().expireSnapshots().retainLast(1).execute();
        double ms = Harness.elapsedNanos(start) / 1e6;
        Harness.note("%s ours: expired %d snapshots, deleted %d data, %d manifests, %d manifest lists, "
                + "%d bytes freed, %d bytes left under the table", NAME, result.expiredSnapshots(),
            result.deletedDataFiles(), result.deletedManifests(), result.deletedManifestLists(), result.bytesFreed(),
            bytesUnder(table.location()));
        return ms;
      };
      Harness.Trial baseline = i -> {
        FeatureTable table = build(store, "baseline_" + (round[0]++), snapshots, rowsPerAppend);
        Table iceberg = table.unwrap(Table.class);
        long start = System.nanoTime();
        // without expireOlderThan Iceberg keeps everything younger than 5 days
        iceberg.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
        double ms = Harness.elapsedNanos(start) / 1e6;
        Harness.note("%s baseline: %d bytes left under the table", NAME, bytesUnder(table.location()));
        return ms;
      };
      Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, ours, baseline);
      Harness.result(NAME, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static FeatureTable build(FeatureStore store, String name, int snapshots, int rows) throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("bench", name), SyntheticFeatures.schema())
        .build());
    Table iceberg = table.unwrap(Table.class);
    OffsetDateTime time = OffsetDateTime.parse("2026-01-01T00:00:00Z");
    long start = System.nanoTime();
    for (int s = 0; s < snapshots; s++) {
      long first = (long) s * rows;
      if (s % 10 == 9) {
        // replace everything: the files written so far become unreachable once expired
        iceberg.newDelete().deleteFromRowFilter(org.apache.iceberg.expressions.Expressions.alwaysTrue()).commit();
        continue;
      }
      long[] next = {first};
      IcebergWriter.append(iceberg, rows, record -> {
        record.setField("entity_id", next[0]++);
        record.setField("event_time", time);
        record.setField("feature_a", 1.0);
        record.setField("feature_b", 2.0);
      });
    }
    Harness.progress("%s: built %s with %d snapshots in %.1f s", NAME, name, snapshots, Harness.elapsedNanos(start) / 1e9);
    table.refresh();
    return table;
  }

  private static long bytesUnder(String location) throws Exception {
    try (Stream<Path> files = Files.walk(Path.of(location))) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
