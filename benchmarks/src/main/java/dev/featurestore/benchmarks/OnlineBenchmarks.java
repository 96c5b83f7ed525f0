package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.PointLookup;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * Online views on a table of {@code -Drows=} (10,000,000) entities, one row each, in
 * {@code -Dbuckets=} (16) files partitioned by bucket(entity_id), entities sorted within each file,
 * bloom filter on entity_id (the point lookup's best case).
 *
 * <ul>
 *   <li>{@code online-get}: p99 ms of a warm single-key {@code view.get(key)} over
 *       {@code -Dlookups=} (20,000) random keys vs the Iceberg point lookup
 *       {@code table.lookup("entity_id").latestBy("event_time").get(key)} ({@code -DbaselineLookups=}
 *       (300) keys), alternating rounds; p50s printed. Target p99 <= 1 ms, ratio <= 0.1.
 *   <li>{@code online-batch}: p99 ms of 100-key {@code view.get(keys, features)} vs the point
 *       lookup's {@code getAll(keys)}. Target p99 <= 5 ms.
 *   <li>{@code online-materialize}: rows/s of a full materialization vs reading the same rows
 *       through {@code table.query()} (the read alone, so the ratio is the share of the read speed
 *       the view keeps); the time of an incremental materialization after a {@code -Dappend=}
 *       (10,000)-row append is printed. Targets >= 500k rows/s, incremental < 1 s.
 * </ul>
 * Settings: {@code -Dwarmups=} (1), {@code -Diterations=} (3).
 */
final class OnlineBenchmarks {
  static final String GET = "online-get";
  static final String BATCH = "online-batch";
  static final String MATERIALIZE = "online-materialize";
  private static final OffsetDateTime T0 = OffsetDateTime.parse("2026-01-01T00:00:00Z");

  private OnlineBenchmarks() {}

  private record Setup(FeatureStore store, FeatureTable table, long rows, Path dir) {}

  private static Setup setUp(String name) throws Exception {
    long rows = Harness.longSetting("rows", 10_000_000L);
    int buckets = Harness.intSetting("buckets", 16);
    Path dir = Harness.tempDir(name);
    FeatureStore store = FeatureStore.openLocal(dir);
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("bench", "online"), SyntheticFeatures.schema())
        .partitionBy(PartitionSpecBuilder.spec(b -> b.bucket("entity_id", buckets)))
        .bloomFilter("entity_id", Math.max(1_000, rows / buckets))
        .property("write.parquet.row-group-size-bytes", Long.toString(1024 * 1024))
        .build());
    Table iceberg = table.unwrap(Table.class);
    long start = System.nanoTime();
    long written = IcebergWriter.append(iceberg, rows(iceberg, 0, rows, 0)).rows();
    table.refresh();
    Harness.note("%s: %d rows (one per entity) in %d buckets, written in %.1f s", name, written, buckets,
        Harness.elapsedNanos(start) / 1e9);
    return new Setup(store, table, rows, dir);
  }

  private static OnlineView view(Setup s) {
    return s.store().onlineView(OnlineViewDefinition.builder("bench", s.table().id())
        .key("entity_id").eventTime("event_time").features("feature_a", "feature_b").build());
  }

  private static OnlineMaterialization materialize(String name, OnlineView view) {
    OnlineMaterialization m = view.materialize();
    Harness.note("%s: %s materialization of %d rows in %.1f s (%.0f rows/s)", name, m.mode(), m.rowsRead(),
        m.duration().toMillis() / 1e3, m.rowsRead() / Math.max(1e-9, m.duration().toNanos() / 1e9));
    return m;
  }

  static void get() throws Exception {
    Setup s = setUp(GET);
    int lookups = Harness.intSetting("lookups", 20_000);
    int baselineLookups = Harness.intSetting("baselineLookups", 300);
    try (FeatureStore store = s.store(); OnlineView view = view(s)) {
      materialize(GET, view);
      PointLookup lookup = s.table().lookup("entity_id").latestBy("event_time");
      SplittableRandom random = new SplittableRandom(42);
      List<Double> ours = new ArrayList<>();
      List<Double> baseline = new ArrayList<>();
      int warmups = Harness.intSetting("warmups", 1);
      long[] found = {0};
      Harness.alternate(GET, "ms", warmups, Harness.intSetting("iterations", 3), i -> {
        double[] latencies = new double[lookups];
        for (int n = 0; n < lookups; n++) {
          long key = random.nextLong(s.rows());
          long t0 = System.nanoTime();
          OnlineRow row = view.get(key);
          latencies[n] = Harness.elapsedNanos(t0) / 1e6;
          found[0] += row.found() ? 1 : 0;
        }
        if (i >= warmups) {
          Arrays.stream(latencies).forEach(ours::add);
        }
        return Harness.median(latencies);
      }, i -> {
        double[] latencies = new double[baselineLookups];
        for (int n = 0; n < baselineLookups; n++) {
          long key = random.nextLong(s.rows());
          long t0 = System.nanoTime();
          lookup.get(key);
          latencies[n] = Harness.elapsedNanos(t0) / 1e6;
        }
        if (i >= warmups) {
          Arrays.stream(latencies).forEach(baseline::add);
        }
        return Harness.median(latencies);
      });
      long asked = (long) lookups * (warmups + Harness.intSetting("iterations", 3));
      if (Harness.runs("ours") && found[0] != asked) {
        throw new IllegalStateException("Cannot run benchmark: the view found " + found[0] + " of " + asked + " keys");
      }
      report(GET, ours, baseline, "single-key reads");
    } finally {
      Harness.deleteRecursively(s.dir());
    }
  }

  static void batch() throws Exception {
    Setup s = setUp(BATCH);
    int batches = Harness.intSetting("batches", 2_000);
    int baselineBatches = Harness.intSetting("baselineBatches", 10);
    int size = Harness.intSetting("batchSize", 100);
    try (FeatureStore store = s.store(); OnlineView view = view(s)) {
      materialize(BATCH, view);
      PointLookup lookup = s.table().lookup("entity_id").latestBy("event_time").select("feature_a", "feature_b");
      SplittableRandom random = new SplittableRandom(7);
      List<Double> ours = new ArrayList<>();
      List<Double> baseline = new ArrayList<>();
      int warmups = Harness.intSetting("warmups", 1);
      List<String> features = List.of("feature_a", "feature_b");
      Harness.alternate(BATCH, "ms", warmups, Harness.intSetting("iterations", 3), i -> {
        double[] latencies = new double[batches];
        for (int n = 0; n < batches; n++) {
          List<Long> keys = keys(random, s.rows(), size);
          long t0 = System.nanoTime();
          OnlineBatch batch = view.get(keys, features);
          latencies[n] = Harness.elapsedNanos(t0) / 1e6;
          if (batch.rows().size() != size) {
            throw new IllegalStateException("Cannot run benchmark: batch of " + batch.rows().size());
          }
        }
        if (i >= warmups) {
          Arrays.stream(latencies).forEach(ours::add);
        }
        return Harness.median(latencies);
      }, i -> {
        double[] latencies = new double[baselineBatches];
        for (int n = 0; n < baselineBatches; n++) {
          List<Long> keys = keys(random, s.rows(), size);
          long t0 = System.nanoTime();
          lookup.getAll(keys);
          latencies[n] = Harness.elapsedNanos(t0) / 1e6;
        }
        if (i >= warmups) {
          Arrays.stream(latencies).forEach(baseline::add);
        }
        return Harness.median(latencies);
      });
      report(BATCH, ours, baseline, size + "-key batches");
    } finally {
      Harness.deleteRecursively(s.dir());
    }
  }

  static void materialize() throws Exception {
    Setup s = setUp(MATERIALIZE);
    int append = Harness.intSetting("append", 10_000);
    try (FeatureStore store = s.store(); OnlineView view = view(s)) {
      int[] round = {0};
      Harness.Medians medians = Harness.alternate(MATERIALIZE, "rows/s", 0, Harness.intSetting("iterations", 1), i -> {
        OnlineMaterialization m = round[0]++ == 0 ? materialize(MATERIALIZE, view) : view.rebuild();
        return m.rowsRead() / (m.duration().toNanos() / 1e9);
      }, i -> {
        long t0 = System.nanoTime();
        long n = 0;
        double sum = 0;
        try (QueryResult result = s.table().query().select("entity_id", "event_time", "feature_a", "feature_b").execute()) {
          for (Row row : result) {
            sum += (Double) row.get("feature_a");
            n++;
          }
        }
        double seconds = Harness.elapsedNanos(t0) / 1e9;
        Harness.note("%s: baseline read %d rows in %.1f s (checksum %.0f)", MATERIALIZE, n, seconds, sum);
        return n / seconds;
      });
      Table iceberg = s.table().unwrap(Table.class);
      for (int k = 0; k < 3; k++) {
        IcebergWriter.append(iceberg, rows(iceberg, (long) k * append, append, k + 1));
        OnlineMaterialization m = view.materialize();
        Harness.note("%s: incremental after a %d-row append: %s in %d ms (%d rows read, %d keys written)", MATERIALIZE,
            append, m.mode(), m.duration().toMillis(), m.rowsRead(), m.keysWritten());
      }
      Harness.result(MATERIALIZE, medians, "rows/s");
    } finally {
      Harness.deleteRecursively(s.dir());
    }
  }

  private static List<Long> keys(SplittableRandom random, long rows, int size) {
    List<Long> keys = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      keys.add(random.nextLong(rows));
    }
    return keys;
  }

  private static void report(String name, List<Double> ours, List<Double> baseline, String what) {
    double[] o = ours.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] b = baseline.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    Harness.note("%s: %d %s: p50=%.3f ms p99=%.3f ms max=%.3f ms; point lookup (%d): p50=%.2f ms p99=%.2f ms", name,
        o.length, what, pct(o, 0.50), pct(o, 0.99), o.length == 0 ? Double.NaN : o[o.length - 1], b.length, pct(b, 0.50),
        pct(b, 0.99));
    Harness.result(name, new Harness.Medians(pct(o, 0.99), pct(b, 0.99)), "ms");
  }

  private static double pct(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(sorted.length * p) - 1))];
  }

  /** {@code count} entities from {@code first}, in entity order, event time {@code T0 + day}. */
  private static Iterator<Record> rows(Table table, long first, long count, int day) {
    Record record = GenericRecord.create(table.schema());
    return new Iterator<>() {
      long next = first;

      @Override
      public boolean hasNext() {
        return next < first + count;
      }

      @Override
      public Record next() {
        long e = next++;
        record.setField("entity_id", e);
        record.setField("event_time", T0.plusDays(day).plusSeconds(e % 86_400));
        record.setField("feature_a", e * 0.001 + day);
        record.setField("feature_b", (double) day);
        return record;
      }
    };
  }
}
