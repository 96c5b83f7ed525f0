package dev.featurestore.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.cdc.Backpressure;
import dev.featurestore.cdc.CdcPipeline;
import dev.featurestore.cdc.CurrentStateLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The current-state benchmarks ({@code -Dlayout=merge-on-read|copy-on-write}, default
 * merge-on-read, the default of new tables).
 *
 * <ul>
 *   <li>{@code cdc-upsert-write}: a current state loaded with {@code -Ddocs=} (10,000,000)
 *       documents through the pipeline in {@code -DloadBatch=} (100,000) batches (the first and
 *       last load batches' times are printed: they stay flat when work follows the batch), then
 *       {@code -Dbatch=} (10,000) random updates per round, timed from {@code flush()} to its
 *       commit; baseline: the same number of rows of the same schema appended to a plain table
 *       with Iceberg's generic writer (one append). Unit: ms per batch, lower is better.
 *       {@code -Dbuckets=N} makes the merge-on-read table bucketed on doc id (the experiment
 *       behind the unpartitioned default).
 *   <li>{@code cdc-upsert-read}: a current state after {@code -Ddocs=} (1,000,000) inserts and
 *       {@code -Dupdates=} (100,000) random updates in 10k batches; full-scan time (median of
 *       {@code -Diterations=} 5 scans, deletion vectors applied) vs the same final rows written
 *       once into a table of the same schema and partition spec. Both sides read through the
 *       library's query reader ({@code table.query().execute()}, every row iterated), what users
 *       of the library read with. Until 2026-12-06 both sides read with Iceberg's {@code
 *       IcebergGenerics}; since the library's reader applies position deletes by position
 *       ({@code ParquetTasks}), the benchmark measures that reader, and the {@code IcebergGenerics}
 *       pair is still measured and printed as a note (first), so the two can be compared. A note
 *       also gives the scanning thread's CPU time per side (medians), steadier than wall time
 *       on a shared machine.
 *   <li>{@code cdc-upsert-read-compacted}: the same, after {@code table.maintenance().compact()}, a full
 *       compaction (every small file; background maintenance merges in size tiers instead).
 * </ul>
 * The pipelines run without background maintenance (on by default since issue 14), so the
 * vectors are what is measured, not a compaction that happened to run during the writes.
 */
final class CdcUpsertBenchmarks {
  static final String UPSERT_WRITE = "cdc-upsert-write";
  static final String UPSERT_READ = "cdc-upsert-read";
  static final String UPSERT_READ_COMPACTED = "cdc-upsert-read-compacted";
  private static final ObjectMapper JSON = new ObjectMapper();

  private CdcUpsertBenchmarks() {}

  private static CurrentStateLayout layout() {
    String value = System.getProperty("layout", "merge-on-read").trim().toLowerCase(Locale.ROOT);
    return value.startsWith("copy") ? CurrentStateLayout.COPY_ON_WRITE : CurrentStateLayout.MERGE_ON_READ;
  }

  // ---- upsert write

  static void upsertWrite() throws Exception {
    int docs = Harness.intSetting("docs", 10_000_000);
    int loadBatch = Harness.intSetting("loadBatch", 100_000);
    int batch = Harness.intSetting("batch", 10_000);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 5);
    int buckets = Harness.intSetting("buckets", 0);
    CurrentStateLayout layout = layout();
    Harness.progress("%s: docs=%d loadBatch=%d batch=%d layout=%s buckets=%d", UPSERT_WRITE, docs, loadBatch, batch,
        layout.value(), buckets);
    Path dir = Harness.tempDir(UPSERT_WRITE);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      TableId stateId = TableId.of("bench", "state");
      if (buckets > 0 && layout == CurrentStateLayout.MERGE_ON_READ) {
        // the spec experiment: a merge-on-read table bucketed on doc id (new tables are unpartitioned)
        CdcPipeline.builder(store).currentState(stateId).shardId("create").writeAheadLog(dir.resolve("wal"))
            .withoutMaintenance().build().close();
        store.table(stateId).evolvePartitionSpec().bucket("doc_id", buckets).commit();
      }
      long loadStart = System.nanoTime();
      List<Double> loadMillis = new ArrayList<>();
      try (CdcPipeline load = CdcPipeline.builder(store).currentState(stateId).currentStateLayout(layout).shardId("load")
          .writeAheadLog(dir.resolve("wal")).batchSize(loadBatch).flushInterval(Duration.ZERO)
          .backpressure(Backpressure.BLOCK, 2L * loadBatch).withoutMaintenance().build()) {
        for (int from = 0; from < docs; from += loadBatch) {
          long start = System.nanoTime();
          for (int d = from; d < Math.min(docs, from + loadBatch); d++) {
            load.insert("users", Integer.toString(d), CdcBenchmarks.doc(d));
          }
          load.flush();
          loadMillis.add(Harness.elapsedNanos(start) / 1e6);
          if (loadMillis.size() % 10 == 0) {
            Harness.progress("%s: loaded %d documents, last batch %.0f ms", UPSERT_WRITE, Math.min(docs, from + loadBatch),
                loadMillis.get(loadMillis.size() - 1));
          }
        }
      }
      double loadSeconds = Harness.elapsedNanos(loadStart) / 1e9;
      Harness.note("%s: loaded %d documents in %.1f s (%.0f docs/s); load batch ms: first %s, last %s", UPSERT_WRITE, docs,
          loadSeconds, docs / loadSeconds, firstOrLast(loadMillis, true), firstOrLast(loadMillis, false));
      Table state = store.table(stateId).unwrap(Table.class);
      Table plain = store.createTable(TableDefinition.builder(TableId.of("bench", "plain"), state.schema()).build())
          .unwrap(Table.class);
      Random random = new Random(42);
      int[] version = {0};
      long buildStart = System.nanoTime();
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(stateId).shardId("bench")
          .writeAheadLog(dir.resolve("wal")).batchSize(2 * batch).flushInterval(Duration.ZERO)
          .backpressure(Backpressure.BLOCK, 4L * batch).withoutMaintenance().build()) {
        Harness.note("%s: pipeline opened in %.0f ms", UPSERT_WRITE, Harness.elapsedNanos(buildStart) / 1e6);
        Harness.Trial ours = i -> {
          for (int u = 0; u < batch; u++) {
            int d = random.nextInt(docs);
            Map<String, Object> after = CdcBenchmarks.doc(d);
            after.put("version", ++version[0]);
            cdc.update("users", Integer.toString(d), after);
          }
          long start = System.nanoTime();
          cdc.flush();
          double ms = Harness.elapsedNanos(start) / 1e6;
          if (i == 0) {
            Harness.note("%s: first batch of the new pipeline (key index built from the table): %.0f ms", UPSERT_WRITE, ms);
          }
          return ms;
        };
        Harness.Trial baseline = i -> {
          List<Record> rows = new ArrayList<>(batch);
          OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
          for (int u = 0; u < batch; u++) {
            int d = random.nextInt(docs);
            Record r = GenericRecord.create(plain.schema());
            r.setField("collection", "users");
            r.setField("doc_id", Integer.toString(d));
            r.setField("_seq", (long) u);
            r.setField("_shard", "b");
            r.setField("_updated_at", now);
            Map<String, Object> doc = CdcBenchmarks.doc(d);
            try {
              r.setField("_doc", JSON.writeValueAsString(doc));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            r.setField("id", d);
            r.setField("name", doc.get("name"));
            r.setField("score", doc.get("score"));
            r.setField("active", doc.get("active"));
            rows.add(r);
          }
          long start = System.nanoTime();
          IcebergWriter.append(plain, rows.iterator());
          return Harness.elapsedNanos(start) / 1e6;
        };
        long filesBefore = count(state);
        Harness.Medians medians = Harness.alternate(UPSERT_WRITE, "ms", warmups, iterations, ours, baseline);
        state.refresh();
        int rounds = warmups + iterations;
        org.apache.iceberg.Snapshot last = state.currentSnapshot();
        Harness.note("%s: current state files=%d after the runs (%d before them), %d manifests; last commit added %s data files, %s delete files, %s bytes",
            UPSERT_WRITE, count(state), filesBefore,
            last.dataManifests(state.io()).size() + last.deleteManifests(state.io()).size(), last.summary().get("added-data-files"),
            last.summary().get("added-delete-files"), last.summary().get("added-files-size"));
        Harness.note("%s: %d update rounds", UPSERT_WRITE, rounds);
        Harness.result(UPSERT_WRITE, medians, "ms");
      }
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static String firstOrLast(List<Double> values, boolean first) {
    int n = Math.min(3, values.size());
    List<Double> part = first ? values.subList(0, n) : values.subList(values.size() - n, values.size());
    return part.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList().toString();
  }

  // ---- upsert read

  static void upsertRead(boolean compacted) throws Exception {
    String name = compacted ? UPSERT_READ_COMPACTED : UPSERT_READ;
    int docs = Harness.intSetting("docs", 1_000_000);
    int updates = Harness.intSetting("updates", 100_000);
    int iterations = Harness.intSetting("iterations", 5);
    int warmups = Harness.intSetting("warmups", 1);
    CurrentStateLayout layout = layout();
    Harness.progress("%s: docs=%d updates=%d layout=%s", name, docs, updates, layout.value());
    Path dir = Harness.tempDir(name);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      TableId stateId = TableId.of("bench", "state");
      Random random = new Random(42);
      long writeStart = System.nanoTime();
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(stateId).currentStateLayout(layout)
          .writeAheadLog(dir.resolve("wal")).batchSize(10_000).flushInterval(Duration.ZERO).withoutMaintenance().build()) {
        for (int d = 0; d < docs; d++) {
          cdc.insert("users", Integer.toString(d), CdcBenchmarks.doc(d));
        }
        for (int u = 0; u < updates; u++) {
          int d = random.nextInt(docs);
          Map<String, Object> after = CdcBenchmarks.doc(d);
          after.put("version", u);
          cdc.update("users", Integer.toString(d), after);
        }
        cdc.flush();
      }
      double writeSeconds = Harness.elapsedNanos(writeStart) / 1e9;
      if (compacted) {
        long start = System.nanoTime();
        store.table(stateId).maintenance().compact().execute();
        Harness.note("%s: compacted in %.0f ms", name, Harness.elapsedNanos(start) / 1e6);
      }
      Table state = store.table(stateId).unwrap(Table.class);
      state.refresh();
      List<Record> rows = scan(state);
      Table once = store.createTable(TableDefinition.builder(TableId.of("bench", "once"), state.schema())
          .partitionSpec(state.spec()).build()).unwrap(Table.class);
      IcebergWriter.append(once, rows.iterator());
      once.refresh();
      Harness.note("%s: rows=%d state files=%d (%d with deletes) snapshots=%d once files=%d; wrote %d entries in %.1f s (%.0f entries/s)",
          name, rows.size(), count(state), countWithDeletes(state), size(state.snapshots()), count(once), docs + updates,
          writeSeconds, (docs + updates) / writeSeconds);
      Harness.Medians generics = Harness.alternate(name + " (IcebergGenerics)", "ms", warmups, iterations,
          i -> time(state, rows.size()), i -> time(once, rows.size()));
      Harness.note("%s: with Iceberg's IcebergGenerics on both sides (what this benchmark measured until 2026-12-06): "
          + "ours=%.2f baseline=%.2f ratio=%.3f", name, generics.ours(), generics.baseline(),
          generics.ours() / generics.baseline());
      FeatureTable stateTable = store.table(stateId);
      FeatureTable onceTable = store.table(TableId.of("bench", "once"));
      List<Double> oursCpu = new ArrayList<>();
      List<Double> baselineCpu = new ArrayList<>();
      Harness.Medians medians = Harness.alternate(name, "ms", warmups, iterations,
          i -> time(stateTable, rows.size(), oursCpu), i -> time(onceTable, rows.size(), baselineCpu));
      // the scanning thread's CPU time: steadier than wall time on a shared machine (a note, not the result)
      double oursCpuMedian = median(oursCpu.subList(Math.min(warmups, oursCpu.size()), oursCpu.size()));
      double baselineCpuMedian = median(baselineCpu.subList(Math.min(warmups, baselineCpu.size()), baselineCpu.size()));
      Harness.note("%s: scanning thread CPU time, medians: ours=%.0f ms baseline=%.0f ms ratio=%.3f", name,
          oursCpuMedian, baselineCpuMedian, oursCpuMedian / baselineCpuMedian);
      Harness.result(name, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }

  private static long count(Table table) throws IOException {
    try (var tasks = table.newScan().planFiles()) {
      return size(tasks);
    }
  }

  private static long countWithDeletes(Table table) throws IOException {
    long n = 0;
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        n += task.deletes().isEmpty() ? 0 : 1;
      }
    }
    return n;
  }

  private static List<Record> scan(Table table) throws IOException {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
      it.forEach(r -> rows.add(r.copy()));
    }
    return rows;
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  /** A full scan through the library's query reader, every row iterated; its thread CPU time goes to {@code cpu}. */
  private static double time(FeatureTable table, int expected, List<Double> cpu) {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    long n = 0;
    try (QueryResult result = table.query().execute()) {
      for (Row ignored : result) {
        n++;
      }
    }
    if (n != expected) {
      throw new IllegalStateException("Cannot time scan: expected " + expected + " rows, read " + n);
    }
    double millis = Harness.elapsedNanos(start) / 1e6;
    cpu.add((threads.getCurrentThreadCpuTime() - cpuStart) / 1e6);
    return millis;
  }

  private static double time(Table table, int expected) throws IOException {
    long start = System.nanoTime();
    long n = 0;
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
      for (Record ignored : it) {
        n++;
      }
    }
    if (n != expected) {
      throw new IllegalStateException("Cannot time scan: expected " + expected + " rows, read " + n);
    }
    return Harness.elapsedNanos(start) / 1e6;
  }
}
