package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TieringResult;
import dev.featurestore.TieringStatus;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code tiering}: ms per full scan (every row, one column summed) of a table whose data files were
 * all moved to a cold bucket (in-process s3proxy, B2 profile) and sit in the warm cold cache, vs
 * the same rows in a hot (local disk) table, same store, alternating. Also notes the move itself
 * (MB/s) and the first, uncached cold scan. Settings: {@code -Drows=} (default 1,000,000),
 * {@code -Dcommits=} (10), {@code -Dwarmups=} (1), {@code -Diterations=} (5). Target ratio <= 1.2.
 */
final class TieringBenchmark {
  static final String NAME = "tiering";

  private TieringBenchmark() {}

  static void run() throws Exception {
    long rows = Harness.longSetting("rows", 1_000_000);
    int commits = Harness.intSetting("commits", 10);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 5);
    Harness.progress("tiering: rows=%d commits=%d warmups=%d iterations=%d", rows, commits, warmups, iterations);
    long expected = rows / commits * commits;
    Path dir = Harness.tempDir(NAME);
    try (LoopbackS3 s3 = new LoopbackS3(dir.resolve("s3"));
        FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).coldStorage(s3.storage()).build()) {
      FeatureTable cold = fill(store, "cold", rows, commits);
      FeatureTable hot = fill(store, "hot", rows, commits);
      long start = System.nanoTime();
      TieringResult moved = cold.tiering().olderThan(Duration.ZERO).execute();
      long moveNanos = Harness.elapsedNanos(start);
      Harness.note("moved %d files, %.1f MB in %d commits: %.1f MB/s", moved.filesMoved(), moved.bytesMoved() / 1e6,
          moved.commits(), moved.bytesMoved() / 1e6 / (moveNanos / 1e9));
      start = System.nanoTime();
      scan(cold, expected);
      Harness.note("first cold scan (cache empty, fetches every file): %.0f ms", Harness.elapsedNanos(start) / 1e6);
      Harness.Trial ours = i -> time(cold, expected);
      Harness.Trial baseline = i -> time(hot, expected);
      Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, ours, baseline);
      TieringStatus status = cold.tiering().status();
      Harness.note("cold cache: %d files, %d bytes, hits=%d misses=%d", status.cache().files(), status.cache().bytes(),
          status.cache().hits(), status.cache().misses());
      Harness.result(NAME, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static FeatureTable fill(FeatureStore store, String name, long rows, int commits) {
    FeatureTable table = store.createTable(
        TableDefinition.builder(TableId.of("bench", name), SyntheticFeatures.schema()).build());
    for (int i = 0; i < commits; i++) {
      table.ingest().synthetic(rows / commits, i).commit();
    }
    return table;
  }

  private static double time(FeatureTable table, long rows) {
    long start = System.nanoTime();
    scan(table, rows);
    return Harness.elapsedNanos(start) / 1e6;
  }

  private static void scan(FeatureTable table, long rows) {
    long count = 0;
    double sum = 0;
    try (QueryResult result = table.query().select("feature_a").execute()) {
      for (Row row : result) {
        Object a = row.get("feature_a");
        sum += a == null ? 0 : (Double) a;
        count++;
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    if (count != rows || Double.isNaN(sum)) {
      throw new IllegalStateException("Cannot measure tiering: expected " + rows + " rows, read: " + count);
    }
  }
}
