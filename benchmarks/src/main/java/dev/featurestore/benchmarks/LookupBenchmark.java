package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.LookupResult;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.PointLookup;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * {@code lookup}: single-key latest-row lookup latency (warm) on a table of {@code -Drows=}
 * (10,000,000) rows in {@code -Ddays=} (10) x {@code -Dbuckets=} (10) files, partitioned by
 * day(event_time) and bucket(entity_id), bloom filter on entity_id, entities sorted within each
 * file; each entity has a row on about half the days.
 *
 * <ul>
 *   <li>ours: {@code table.lookup("entity_id").latestBy("event_time").get(key)}, p50 over
 *       {@code -Dlookups=} (500) random keys per round (p90, p99 and max printed as a note, and the
 *       same percentiles of each lookup's thread CPU time);
 *   <li>baseline: a full scan with the same filter (every row read, the filter applied in Java).
 * </ul>
 *
 * Targets (issue 15): p50 <= 5 ms, p99 <= 15 ms. Settings: {@code -Dwarmups=} (1), {@code -Diterations=} (3).
 */
final class LookupBenchmark {
  static final String NAME = "lookup";
  private static final OffsetDateTime DAY0 = OffsetDateTime.parse("2026-01-01T00:00:00Z");

  private LookupBenchmark() {}

  static void run() throws Exception {
    long rows = Harness.longSetting("rows", 10_000_000L);
    int days = Harness.intSetting("days", 10);
    int buckets = Harness.intSetting("buckets", 10);
    int lookups = Harness.intSetting("lookups", 500);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    long entities = rows / days * 2; // each entity on about half the days
    Harness.progress("%s: rows=%d days=%d buckets=%d entities=%d lookups=%d", NAME, rows, days, buckets, entities, lookups);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      long rowsPerFile = rows / days / buckets;
      FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("bench", "lookup"), SyntheticFeatures.schema())
          .partitionBy(PartitionSpecBuilder.spec(b -> b.day("event_time").bucket("entity_id", buckets)))
          .bloomFilter("entity_id", Math.max(1_000, rowsPerFile / 4))
          .property("write.parquet.row-group-size-bytes", Long.toString(512 * 1024))
          .build());
      Table iceberg = table.unwrap(Table.class);
      long start = System.nanoTime();
      long written = 0;
      for (int day = 0; day < days; day++) {
        written += IcebergWriter.append(iceberg, dayRows(iceberg, day, entities)).rows();
        Harness.progress("%s: day %d/%d written (%d rows, %.0f s)", NAME, day + 1, days, written, Harness.elapsedNanos(start) / 1e9);
      }
      table.refresh();
      int files = table.explainPruning(org.apache.iceberg.expressions.Expressions.alwaysTrue()).files().size();
      Harness.note("%s: %d rows in %d data files, written in %.1f s", NAME, written, files, Harness.elapsedNanos(start) / 1e9);

      PointLookup lookup = table.lookup("entity_id").latestBy("event_time");
      SplittableRandom random = new SplittableRandom(42);
      double[] allLatencies = new double[lookups * iterations];
      // thread CPU time beside wall time: a tail in wall time but not in CPU time is waiting (for a
      // core on a busy machine, for a GC pause), not work
      java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
      double[] allCpu = new double[lookups * iterations];
      int[] filled = {0};
      long[] filesRead = {0};
      long[] groupsRead = {0};
      long[] rowsScanned = {0};
      long[] found = {0};
      Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, i -> {
        double[] latencies = new double[lookups];
        for (int n = 0; n < lookups; n++) {
          long key = random.nextLong(entities);
          long cpu0 = threads.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          LookupResult result = lookup.get(key);
          latencies[n] = Harness.elapsedNanos(t0) / 1e6;
          double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e6;
          if (i >= warmups) {
            allCpu[filled[0]] = cpu;
            allLatencies[filled[0]++] = latencies[n];
            filesRead[0] += result.stats().filesRead();
            groupsRead[0] += result.stats().rowGroupsRead();
            rowsScanned[0] += result.stats().rowsScanned();
            found[0] += result.row().isPresent() ? 1 : 0;
          }
        }
        return Harness.median(latencies);
      }, i -> fullScanMillis(table, random.nextLong(entities)));
      double[] sorted = Arrays.copyOf(allLatencies, filled[0]);
      Arrays.sort(sorted);
      double p50 = sorted[sorted.length / 2];
      double p99 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)];
      double p90 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.90) - 1)];
      double[] cpuSorted = Arrays.copyOf(allCpu, filled[0]);
      Arrays.sort(cpuSorted);
      Harness.note("%s: %d lookups: p50=%.2f ms p90=%.2f ms p99=%.2f ms max=%.2f ms; found %d; per lookup %.2f files, "
              + "%.2f row groups and %.0f rows read", NAME, sorted.length, p50, p90, p99, sorted[sorted.length - 1],
          found[0], (double) filesRead[0] / sorted.length, (double) groupsRead[0] / sorted.length,
          (double) rowsScanned[0] / sorted.length);
      Harness.note("%s: thread CPU time per lookup: p50=%.2f ms p90=%.2f ms p99=%.2f ms max=%.2f ms", NAME,
          cpuSorted[cpuSorted.length / 2], cpuSorted[Math.min(cpuSorted.length - 1, (int) Math.ceil(cpuSorted.length * 0.90) - 1)],
          cpuSorted[Math.min(cpuSorted.length - 1, (int) Math.ceil(cpuSorted.length * 0.99) - 1)],
          cpuSorted[cpuSorted.length - 1]);
      Harness.result(NAME, new Harness.Medians(p50, medians.baseline()), "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static boolean present(long entity, int day) {
    long h = (entity * 0x9E3779B97F4A7C15L) ^ (day * 0xC2B2AE3D27D4EB4FL);
    return ((h ^ (h >>> 29)) & 1) == 0;
  }

  /** One day's rows in entity order (so each file is sorted by entity). */
  private static Iterator<Record> dayRows(Table table, int day, long entities) {
    Record record = GenericRecord.create(table.schema());
    return new Iterator<>() {
      long next = advance(0);

      private long advance(long from) {
        long e = from;
        while (e < entities && !present(e, day)) {
          e++;
        }
        return e;
      }

      @Override
      public boolean hasNext() {
        return next < entities;
      }

      @Override
      public Record next() {
        long e = next;
        next = advance(e + 1);
        record.setField("entity_id", e);
        record.setField("event_time", DAY0.plusDays(day).plusSeconds(e % 86_400));
        record.setField("feature_a", e * 0.001 + day);
        record.setField("feature_b", (double) day);
        return record;
      }
    };
  }

  private static double fullScanMillis(FeatureTable table, long key) {
    long start = System.nanoTime();
    OffsetDateTime latest = null;
    try (QueryResult result = table.query().execute()) {
      for (Row row : result) {
        if ((Long) row.get("entity_id") == key) {
          OffsetDateTime t = (OffsetDateTime) row.get("event_time");
          if (latest == null || t.isAfter(latest)) {
            latest = t;
          }
        }
      }
    }
    return Harness.elapsedNanos(start) / 1e6;
  }
}
