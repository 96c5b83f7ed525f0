package dev.featurestore.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcPipeline;
import dev.featurestore.cdc.FsyncPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * The CDC benchmarks.
 *
 * <ul>
 *   <li>{@code cdc-throughput}: {@code -Devents=} (default 2,000,000: about 10 s per round, so
 *       the figure is sustained throughput, not a JIT warm-up) inserts through
 *       {@code createEntry} into a change log, 10k-entry batches, write-ahead log on (fsync every
 *       batch), timed until the last commit; baseline: the same rows (images serialized to JSON
 *       the same way) appended with Iceberg's generic writer, one append per 10k rows. Two
 *       unmeasured warm-up rounds per side (both sides alike; one until 2026-12-06: a round is
 *       only ~200 commits, and C2 was still compiling Iceberg's commit path, shared by both sides,
 *       in the measured rounds), then 3 measured rounds per side; each round opens a new pipeline
 *       or table, outside the timed part.
 *   <li>{@code cdc-freshness}: entries at {@code -Drate=} per second (default 2,000) for
 *       {@code -Dseconds=} (default 8), 1 s flush interval; a poller refreshes the table every
 *       5 ms (20 ms until 2026-12-05, which added up to 20 ms to every lag) and records when each
 *       entry's snapshot became current. Baseline: a thread that
 *       appends the buffered rows with the generic writer every 1 s. Unit: p99 ms (p50 as a note).
 * </ul>
 *
 * The current-state benchmarks are in {@link CdcUpsertBenchmarks}.
 */
final class CdcBenchmarks {
  static final String THROUGHPUT = "cdc-throughput";
  static final String FRESHNESS = "cdc-freshness";
  private static final ObjectMapper JSON = new ObjectMapper();

  private CdcBenchmarks() {}

  static Map<String, Object> doc(long i) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("id", i);
    doc.put("name", "user-" + i);
    doc.put("score", i * 0.5);
    doc.put("active", i % 2 == 0);
    return doc;
  }

  // ---- throughput

  static void throughput() throws Exception {
    int events = Harness.intSetting("events", 2_000_000);
    int batch = Harness.intSetting("batch", 10_000);
    int warmups = Harness.intSetting("warmups", 2);
    int iterations = Harness.intSetting("iterations", 3);
    Harness.progress("%s: events=%d batch=%d warmups=%d iterations=%d", THROUGHPUT, events, batch, warmups, iterations);
    Path dir = Harness.tempDir(THROUGHPUT);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      Harness.Trial ours = i -> {
        TableId id = TableId.of("bench", "cdc_log_" + i);
        long start;
        long elapsed;
        try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(id).shardId("t" + i)
            .writeAheadLog(dir.resolve("wal")).batchSize(batch).flushInterval(Duration.ZERO)
            .fsync(FsyncPolicy.EVERY_BATCH).backpressure(dev.featurestore.cdc.Backpressure.BLOCK, 4L * batch).build()) {
          start = System.nanoTime();
          for (long e = 1; e <= events; e++) {
            cdc.insert("users", Long.toString(e), doc(e));
          }
          cdc.flush();
          elapsed = Harness.elapsedNanos(start);
        }
        return events / (elapsed / 1e9);
      };
      Harness.Trial baseline = i -> {
        TableId logId = TableId.of("bench", "cdc_log_0");
        FeatureTable template = store.findTable(logId).orElseGet(() -> {
          try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(logId).shardId("t0").writeAheadLog(dir.resolve("wal")).build()) {
            return store.table(logId);
          }
        });
        Table table = store.createTable(TableDefinition.builder(TableId.of("bench", "generic_" + i), template.schema()).build())
            .unwrap(Table.class);
        long start = System.nanoTime();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        for (long from = 1; from <= events; from += batch) {
          long first = from;
          long last = Math.min(events, from + batch - 1);
          List<Record> rows = new ArrayList<>((int) (last - first + 1));
          for (long e = first; e <= last; e++) {
            Record r = GenericRecord.create(table.schema());
            r.setField("op", "insert");
            r.setField("seq", e);
            r.setField("shard", "b");
            r.setField("commit_time", now);
            r.setField("event_time", OffsetDateTime.now(ZoneOffset.UTC));
            r.setField("collection", "users");
            r.setField("doc_id", Long.toString(e));
            try {
              r.setField("after", JSON.writeValueAsString(doc(e)));
            } catch (IOException ex) {
              throw new UncheckedIOException(ex);
            }
            rows.add(r);
          }
          IcebergWriter.append(table, rows.iterator());
        }
        return events / (Harness.elapsedNanos(start) / 1e9);
      };
      Harness.Medians medians = Harness.alternate(THROUGHPUT, "events/s", warmups, iterations, ours, baseline);
      Harness.result(THROUGHPUT, medians, "events/s");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  // ---- freshness

  static void freshness() throws Exception {
    int rate = Harness.intSetting("rate", 2_000);
    int seconds = Harness.intSetting("seconds", 8);
    int warmups = Harness.intSetting("warmups", 0);
    int iterations = Harness.intSetting("iterations", 1);
    Harness.progress("%s: rate=%d/s seconds=%d", FRESHNESS, rate, seconds);
    Path dir = Harness.tempDir(FRESHNESS);
    double[] p50s = new double[2];
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      Harness.Trial ours = i -> {
        TableId id = TableId.of("bench", "fresh_" + i);
        long opening = System.nanoTime();
        try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(id).shardId("f" + i).writeAheadLog(dir.resolve("wal"))
            .batchSize(1_000_000).backpressure(dev.featurestore.cdc.Backpressure.BLOCK, 2_000_000)
            .flushInterval(Duration.ofSeconds(1)).build()) {
          Harness.note("%s ours: pipeline opened in %d ms (not part of the lags)", FRESHNESS, Harness.elapsedNanos(opening) / 1_000_000);
          Table table = store.table(id).unwrap(Table.class);
          String key = "featurestore.cdc.shard.f" + i + ".max-seq";
          double[] lags = measureLags("ours", rate, seconds, e -> cdc.insert("users", Long.toString(e), doc(e)), () -> {
            table.refresh();
            Snapshot s = table.currentSnapshot();
            return s == null || s.summary().get(key) == null ? 0 : Long.parseLong(s.summary().get(key));
          });
          p50s[0] = Harness.percentile(lags, 50);
          Harness.note("%s ours: p50=%.0f ms p99=%.0f ms max=%.0f ms entries=%d", FRESHNESS, p50s[0], Harness.percentile(lags, 99),
              Harness.percentile(lags, 100), lags.length);
          return Harness.percentile(lags, 99);
        }
      };
      Harness.Trial baseline = i -> {
        TableId logId = TableId.of("bench", "fresh_0");
        Table table = store.createTable(TableDefinition.builder(TableId.of("bench", "fresh_generic_" + i),
            store.table(logId).schema()).build()).unwrap(Table.class);
        List<Record> buffer = new ArrayList<>();
        long[] appendedThrough = {0};
        AtomicBoolean stop = new AtomicBoolean();
        Thread appender = new Thread(() -> {
          while (!stop.get()) {
            try {
              Thread.sleep(1000);
            } catch (InterruptedException e) {
              return;
            }
            List<Record> rows;
            synchronized (buffer) {
              rows = new ArrayList<>(buffer);
              buffer.clear();
            }
            if (!rows.isEmpty()) {
              try {
                IcebergWriter.append(table, rows.iterator());
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              synchronized (appendedThrough) {
                appendedThrough[0] = (Long) rows.get(rows.size() - 1).getField("seq");
              }
            }
          }
        });
        appender.start();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        double[] lags = measureLags("baseline", rate, seconds, e -> {
          Record r = GenericRecord.create(table.schema());
          r.setField("op", "insert");
          r.setField("seq", e);
          r.setField("shard", "b");
          r.setField("commit_time", now);
          r.setField("event_time", now);
          r.setField("collection", "users");
          r.setField("doc_id", Long.toString(e));
          try {
            r.setField("after", JSON.writeValueAsString(doc(e)));
          } catch (IOException ex) {
            throw new UncheckedIOException(ex);
          }
          synchronized (buffer) {
            buffer.add(r);
          }
          return e;
        }, () -> {
          table.refresh();
          synchronized (appendedThrough) {
            return appendedThrough[0];
          }
        });
        stop.set(true);
        appender.join();
        p50s[1] = Harness.percentile(lags, 50);
        Harness.note("%s baseline: p50=%.0f ms p99=%.0f ms max=%.0f ms entries=%d", FRESHNESS, p50s[1], Harness.percentile(lags, 99),
            Harness.percentile(lags, 100), lags.length);
        return Harness.percentile(lags, 99);
      };
      Harness.Medians medians = Harness.alternate(FRESHNESS, "ms", warmups, iterations, ours, baseline);
      Harness.result(FRESHNESS, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  interface Producer {
    long produce(long e);
  }

  interface Visible {
    long visibleThrough();
  }

  /**
   * How long the poller sleeps between refreshes. Every lag includes the time from the commit to
   * the next refresh that sees it: 20 ms of sleep added up to 20 ms (10 on average) to each lag
   * until 2026-12-05; 5 ms costs a catalog query every few ms, on both sides alike.
   */
  private static final long POLL_MILLIS = 5;

  /**
   * Produces at {@code rate}/s for {@code seconds}; polls visibility every {@link #POLL_MILLIS} ms; returns per-entry lags in ms.
   * With {@code -Dlags=<prefix>} each entry's creation and visibility (ms from the start) go to
   * {@code <prefix>-<side>.csv}, to see which entries make the tail.
   */
  private static double[] measureLags(String side, int rate, int seconds, Producer producer, Visible visible) throws Exception {
    int total = rate * seconds;
    long[] created = new long[total + 1];
    long[] seen = new long[total + 1];
    AtomicBoolean done = new AtomicBoolean();
    Thread poller = new Thread(() -> {
      long through = 0;
      while (through < total) {
        long now = System.nanoTime();
        long v = visible.visibleThrough();
        for (long e = through + 1; e <= v; e++) {
          seen[(int) e] = now;
        }
        through = Math.max(through, v);
        if (done.get() && System.nanoTime() - now > 0 && through >= total) {
          break;
        }
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException ex) {
          return;
        }
      }
    });
    poller.start();
    long start = System.nanoTime();
    for (int e = 1; e <= total; e++) {
      long due = start + (long) (e * (1e9 / rate));
      while (System.nanoTime() < due) {
        Thread.onSpinWait();
        if (due - System.nanoTime() > 2_000_000) {
          Thread.sleep(1);
        }
      }
      created[e] = System.nanoTime();
      producer.produce(e);
    }
    done.set(true);
    poller.join(30_000);
    double[] lags = new double[total];
    for (int e = 1; e <= total; e++) {
      lags[e - 1] = seen[e] == 0 ? Double.NaN : (seen[e] - created[e]) / 1e6;
    }
    String dump = System.getProperty("lags", "").trim();
    if (!dump.isEmpty()) {
      StringBuilder csv = new StringBuilder("entry,created_ms,visible_ms,lag_ms\n");
      for (int e = 1; e <= total; e++) {
        csv.append(e).append(',').append((created[e] - start) / 1e6).append(',').append((seen[e] - start) / 1e6).append(',')
            .append(lags[e - 1]).append('\n');
      }
      java.nio.file.Files.writeString(Path.of(dump + "-" + side + ".csv"), csv);
    }
    return lags;
  }
}
