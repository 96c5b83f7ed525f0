package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableId;
import dev.featurestore.TableStats;
import dev.featurestore.TableStats.CommitStats;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * {@code commit}: median latency of a small append commit.
 *
 * <ul>
 *   <li>ours: {@code table.append(rows)} with 100 rows given as maps;
 *   <li>baseline: the same 100 rows, as Iceberg records, written with Iceberg's generic writer
 *       and committed with {@code newAppend().commit()} to a second table of the same catalog.
 * </ul>
 *
 * <p>Both tables are feature_events partitioned by {@code day(event_time)}; each batch's event
 * times fall within one hour, so each commit writes one data file, as recent events do. Both
 * tables grow by one snapshot per round, so their metadata grows alike. Beside the latency it
 * prints the median metadata bytes written per commit (from {@code TableStats}). Settings:
 * {@code -Drows=} (default 100), {@code -Dwarmups=} (10), {@code -Diterations=} (50).
 */
final class CommitBenchmark {
  static final String NAME = "commit";

  private CommitBenchmark() {}

  static void run() throws Exception {
    int rows = Harness.intSetting("rows", 100);
    int warmups = Harness.intSetting("warmups", 10);
    int iterations = Harness.intSetting("iterations", 50);
    long seed = Harness.longSetting("seed", 42);
    Harness.progress("commit: rows=%d warmups=%d iterations=%d", rows, warmups, iterations);

    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable ours = store.createTable(IngestBenchmark.definition(TableId.of("bench", "commit_ours")));
      FeatureTable baseline = store.createTable(IngestBenchmark.definition(TableId.of("bench", "commit_baseline")));
      Table baselineTable = baseline.unwrap(Table.class);
      SyntheticRows generator = new SyntheticRows(seed, Instant.now());
      Instant hour = Instant.now().truncatedTo(ChronoUnit.HOURS);

      Harness.Trial oursTrial = i -> {
        List<Map<String, Object>> batch = generator.recentRows(rows, hour);
        long start = System.nanoTime();
        ours.append(batch);
        return Harness.elapsedNanos(start) / 1e6;
      };
      Harness.Trial baselineTrial = i -> {
        List<Map<String, Object>> batch = generator.recentRows(rows, hour);
        long start = System.nanoTime();
        IcebergWriter.append(baselineTable, records(baselineTable, batch));
        return Harness.elapsedNanos(start) / 1e6;
      };
      Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, oursTrial, baselineTrial);
      if (Harness.runs("ours")) {
        note("ours", ours, iterations);
      }
      if (Harness.runs("baseline")) {
        note("baseline", baseline, iterations);
      }
      Harness.result(NAME, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** Median bytes written per measured commit (the last {@code iterations} commits). */
  private static void note(String side, FeatureTable table, int iterations) {
    long start = System.nanoTime();
    TableStats stats = table.stats();
    double statsMillis = Harness.elapsedNanos(start) / 1e6;
    List<CommitStats> commits = stats.commits();
    List<CommitStats> measured = commits.subList(Math.max(0, commits.size() - iterations), commits.size());
    long[] metadata = measured.stream().mapToLong(CommitStats::metadataBytesWritten).toArray();
    long[] data = measured.stream().mapToLong(CommitStats::dataBytesWritten).toArray();
    double[] amplification = measured.stream().mapToDouble(CommitStats::writeAmplification).toArray();
    Harness.note("commit %-8s: commits=%d median metadata bytes/commit=%.0f median data bytes/commit=%.0f "
            + "median write amplification=%.1f table totalBytes=%d (stats of %d snapshots in %.0f ms)",
        side, measured.size(), Harness.median(metadata), Harness.median(data), Harness.median(amplification),
        stats.totalBytes(), stats.snapshots(), statsMillis);
  }

  private static Iterator<Record> records(Table table, List<Map<String, Object>> batch) {
    Iterator<Map<String, Object>> rows = batch.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public Record next() {
        Map<String, Object> row = rows.next();
        Record record = GenericRecord.create(table.schema());
        record.setField("entity_id", row.get("entity_id"));
        record.setField("event_time", (OffsetDateTime) row.get("event_time"));
        record.setField("feature_a", row.get("feature_a"));
        record.setField("feature_b", row.get("feature_b"));
        return record;
      }
    };
  }
}
