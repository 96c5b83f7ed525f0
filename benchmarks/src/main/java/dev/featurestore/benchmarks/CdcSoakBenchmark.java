package dev.featurestore.benchmarks;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.FeatureStore;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcPipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code cdc-soak}: a stream as users run it, for many commits. A pipeline with a change log and
 * a current state over {@code -Ddocs=} (1,000,000) documents, loaded first in 50k batches, then
 * {@code -Dcommits=} (20,000) commits of {@code -Dupdates=} (100) random updates each, one
 * {@code flush()} per commit, with the pipeline's default background maintenance. It times every
 * flush (both tables committed) and compares the p99 of the last window of commits with the p99
 * of the first (the window is 1,000 commits, or a tenth of the commits when fewer): ours = last
 * p99, baseline = first p99, ratio = last / first (target <= 1.2). It also prints the p50s, the
 * files under each table's directory at the end, the largest metadata.json, and the snapshots
 * left, and what the background maintenance did, so growth is visible beside the latency.
 */
final class CdcSoakBenchmark {
  static final String NAME = "cdc-soak";

  private CdcSoakBenchmark() {}

  static void run() throws Exception {
    int docs = Harness.intSetting("docs", 1_000_000);
    int commits = Harness.intSetting("commits", 20_000);
    int updates = Harness.intSetting("updates", 100);
    int window = Math.max(1, Math.min(1_000, commits / 10));
    Harness.progress("%s: docs=%d commits=%d updates=%d window=%d", NAME, docs, commits, updates, window);
    Path dir = Harness.tempDir(NAME);
    TableId log = TableId.of("soak", "changes");
    TableId state = TableId.of("soak", "current");
    Random random = new Random(42);
    double[] flushMs = new double[commits];
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = CdcPipeline.builder(store).changeLog(log).currentState(state).shardId("soak")
            .writeAheadLog(dir.resolve("wal")).batchSize(Math.max(50_000, updates) + 1)
            .flushInterval(Duration.ZERO).build()) {
      long loadStart = System.nanoTime();
      for (int i = 0; i < docs; i++) {
        cdc.insert("users", Integer.toString(i), doc(i, 0));
        if ((i + 1) % 50_000 == 0) {
          cdc.flush();
        }
      }
      cdc.flush();
      double loadSeconds = Harness.elapsedNanos(loadStart) / 1e9;
      Harness.note("%s load: %d documents in %.1f s (%.0f documents/s)", NAME, docs, loadSeconds, docs / loadSeconds);
      long soakStart = System.nanoTime();
      long[] seen = new long[2]; // compactions of each table already printed
      for (int c = 0; c < commits; c++) {
        for (int u = 0; u < updates; u++) {
          int id = random.nextInt(docs);
          cdc.update("users", Integer.toString(id), doc(id, c + 1));
        }
        long start = System.nanoTime();
        cdc.flush();
        flushMs[c] = Harness.elapsedNanos(start) / 1e6;
        if ((c + 1) % Math.max(1, commits / 20) == 0) {
          Harness.progress("%s: %d/%d commits, last flush %.1f ms, %s; current state: %s; compactions since the last line: "
              + "state %s, change log %s", NAME, c + 1, commits, flushMs[c], footprint(dir.resolve("store")), live(store, state),
              rounds(store, state, seen, 0), rounds(store, log, seen, 1));
        }
      }
      double soakSeconds = Harness.elapsedNanos(soakStart) / 1e9;
      double[] first = Arrays.copyOfRange(flushMs, 0, window);
      double[] last = Arrays.copyOfRange(flushMs, commits - window, commits);
      Harness.note("%s: %d commits in %.0f s; first %d: p50=%.1f ms p99=%.1f ms; last %d: p50=%.1f ms p99=%.1f ms",
          NAME, commits, soakSeconds, window, Harness.percentile(first, 50), Harness.percentile(first, 99), window,
          Harness.percentile(last, 50), Harness.percentile(last, 99));
      Harness.note("%s at the end: %s; current state: %s", NAME, footprint(dir.resolve("store")), live(store, state));
      Harness.note("%s: %d compactions of the current state in its history (not expired); %s", NAME,
          compactions(store, state), compactionLog(store, state));
      for (BackgroundMaintenanceStatus m : cdc.maintenance()) {
        Harness.note("%s maintenance of %s: %d rounds (%d failed), %d snapshots expired, %d data files compacted, %d manifests "
            + "rewritten, %d bytes freed; %d snapshots left%s", NAME, m.table(), m.rounds(), m.roundsFailed(), m.snapshotsExpired(),
            m.dataFilesCompacted(), m.manifestsRewritten(), m.bytesFreed(), snapshots(store, m.table()),
            m.lastError().map(e -> "; last failure: " + e).orElse(""));
      }
      double ours = Harness.percentile(last, 99);
      double baseline = Harness.percentile(first, 99);
      Harness.result(NAME, new Harness.Medians(ours, baseline), "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** The live data files of a table's current snapshot and how many of them have deletes. */
  private static String live(FeatureStore store, TableId id) {
    org.apache.iceberg.Table table = store.table(id).unwrap(org.apache.iceberg.Table.class);
    table.refresh();
    long files = 0;
    long withDeletes = 0;
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        files++;
        withDeletes += task.deletes().isEmpty() ? 0 : 1;
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files + " live data files, " + withDeletes + " with deletes";
  }

  /** Compaction commits in the table's history (those not expired yet): replace snapshots that removed data files. */
  private static int compactions(FeatureStore store, TableId id) {
    org.apache.iceberg.Table table = store.table(id).unwrap(org.apache.iceberg.Table.class);
    int n = 0;
    for (org.apache.iceberg.Snapshot s : table.snapshots()) {
      if ("replace".equals(s.operation()) && s.removedDataFiles(table.io()).iterator().hasNext()) {
        n++;
      }
    }
    return n;
  }

  /** What the operations log says the table's compactions did: count, rows carried over, the commit lock's longest hold. */
  private static String compactionLog(FeatureStore store, TableId id) {
    java.util.regex.Pattern carried = java.util.regex.Pattern.compile("\"carried_deletes\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern lock = java.util.regex.Pattern.compile("\"lock_ms\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern commit = java.util.regex.Pattern.compile("\"commit_ms\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern files = java.util.regex.Pattern.compile("\"rewritten_files\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern prepare = java.util.regex.Pattern.compile("\"prepare_ms\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern cleanup = java.util.regex.Pattern.compile("\"cleanup_lock_ms\"\\s*:\\s*(\\d+)");
    long n = 0;
    long rows = 0;
    long rewritten = 0;
    List<Long> locks = new java.util.ArrayList<>();
    List<Long> commits = new java.util.ArrayList<>();
    List<Long> prepares = new java.util.ArrayList<>();
    List<Long> cleanups = new java.util.ArrayList<>();
    try (dev.featurestore.QueryResult entries = store.operations()) {
      for (dev.featurestore.Row row : entries) {
        if (!"compact".equals(row.get("operation")) || !id.toString().equals(row.get("table_name"))) {
          continue;
        }
        String details = (String) row.get("details");
        n++;
        java.util.regex.Matcher m = carried.matcher(details);
        rows += m.find() ? Long.parseLong(m.group(1)) : 0;
        m = files.matcher(details);
        rewritten += m.find() ? Long.parseLong(m.group(1)) : 0;
        m = lock.matcher(details);
        if (m.find()) {
          locks.add(Long.parseLong(m.group(1)));
        }
        m = commit.matcher(details);
        if (m.find()) {
          commits.add(Long.parseLong(m.group(1)));
        }
        m = prepare.matcher(details);
        if (m.find()) {
          prepares.add(Long.parseLong(m.group(1)));
        }
        m = cleanup.matcher(details);
        if (m.find() && Long.parseLong(m.group(1)) > 0) {
          cleanups.add(Long.parseLong(m.group(1)));
        }
      }
    }
    java.util.Collections.sort(locks);
    java.util.Collections.sort(commits);
    java.util.Collections.sort(prepares);
    java.util.Collections.sort(cleanups);
    return n + " compactions in the operations log, " + rewritten + " data files rewritten, " + rows
        + " deletes carried over, commit lock held " + (locks.isEmpty() ? "-" : locks.get(locks.size() / 2) + " ms median, "
        + locks.get(locks.size() - 1) + " ms max (the commit itself " + commits.get(commits.size() / 2) + " ms median, "
        + commits.get(commits.size() - 1) + " ms max)")
        + (prepares.isEmpty() ? "" : "; prepared before the lock in " + prepares.get(prepares.size() / 2) + " ms median, "
            + prepares.get(prepares.size() - 1) + " ms max")
        + (cleanups.isEmpty() ? "" : "; " + cleanups.size() + " removals of the vectors left pointing at removed files held "
            + "the lock " + cleanups.get(cleanups.size() / 2) + " ms median, " + cleanups.get(cleanups.size() - 1) + " ms max");
  }

  /**
   * The compactions of {@code id} in the operations log after the first {@code seen[slot]}: how
   * many, data files and bytes rewritten, and their time (each compaction's {@code elapsed_ms}),
   * so the cost of a round can be followed against the stream's age.
   */
  private static String rounds(FeatureStore store, TableId id, long[] seen, int slot) {
    java.util.regex.Pattern files = java.util.regex.Pattern.compile("\"rewritten_files\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern bytes = java.util.regex.Pattern.compile("\"rewritten_bytes\"\\s*:\\s*(\\d+)");
    java.util.regex.Pattern elapsed = java.util.regex.Pattern.compile("\"elapsed_ms\"\\s*:\\s*(\\d+)");
    long n = 0;
    long rewrittenFiles = 0;
    long rewrittenBytes = 0;
    long maxBytes = 0;
    long ms = 0;
    long maxMs = 0;
    long index = 0;
    try (dev.featurestore.QueryResult entries = store.operations()) {
      for (dev.featurestore.Row row : entries) {
        if (!"compact".equals(row.get("operation")) || !id.toString().equals(row.get("table_name"))) {
          continue;
        }
        if (index++ < seen[slot]) {
          continue;
        }
        String details = (String) row.get("details");
        n++;
        java.util.regex.Matcher m = files.matcher(details);
        rewrittenFiles += m.find() ? Long.parseLong(m.group(1)) : 0;
        m = bytes.matcher(details);
        long b = m.find() ? Long.parseLong(m.group(1)) : 0;
        rewrittenBytes += b;
        maxBytes = Math.max(maxBytes, b);
        m = elapsed.matcher(details);
        long t = m.find() ? Long.parseLong(m.group(1)) : 0;
        ms += t;
        maxMs = Math.max(maxMs, t);
      }
    }
    seen[slot] = index;
    return n == 0 ? "none" : String.format("%d (%d files, %.1f MB rewritten, at most %.1f MB in one; %d ms, at most %d ms)",
        n, rewrittenFiles, rewrittenBytes / 1e6, maxBytes / 1e6, ms, maxMs);
  }

  private static int snapshots(FeatureStore store, TableId id) {
    int n = 0;
    for (Object ignored : store.table(id).unwrap(org.apache.iceberg.Table.class).snapshots()) {
      n++;
    }
    return n;
  }

  private static Map<String, Object> doc(int id, int version) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("id", id);
    doc.put("name", "user-" + id);
    doc.put("score", id * 0.5 + version);
    doc.put("version", version);
    return doc;
  }

  /** Files under each table directory, the largest metadata.json, in one line. */
  private static String footprint(Path root) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return footprintOnce(root);
      } catch (java.io.UncheckedIOException e) {
        if (attempt == 5) {
          throw e; // a file deleted by maintenance while walking: walk again, but not forever
        }
      }
    }
  }

  private static String footprintOnce(Path root) throws IOException {
    long[] counts = new long[3]; // data files, metadata files, largest metadata.json
    // maintenance deletes files while this walks: a file gone between listing and reading is skipped
    Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<Path>() {
      @Override
      public java.nio.file.FileVisitResult visitFile(Path p, java.nio.file.attribute.BasicFileAttributes attrs) {
        String name = p.getFileName().toString();
        if (name.endsWith(".metadata.json")) {
          counts[2] = Math.max(counts[2], attrs.size());
        }
        if (p.toString().contains("/soak") || p.toString().contains("soak.db")) {
          if (p.getParent().getFileName().toString().equals("metadata") || p.toString().contains("/metadata/")) {
            counts[1]++;
          } else if (p.toString().contains("/data/")) {
            counts[0]++;
          }
        }
        return java.nio.file.FileVisitResult.CONTINUE;
      }

      @Override
      public java.nio.file.FileVisitResult visitFileFailed(Path p, IOException e) {
        return java.nio.file.FileVisitResult.CONTINUE;
      }
    });
    long dataFiles = counts[0];
    long metadataFiles = counts[1];
    long largestMetadataJson = counts[2];
    return "files under the tables: " + dataFiles + " data + " + metadataFiles + " metadata, largest metadata.json "
        + largestMetadataJson + " bytes";
  }
}
