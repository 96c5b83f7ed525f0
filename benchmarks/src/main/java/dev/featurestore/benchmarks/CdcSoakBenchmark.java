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

  private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("\"(\\w+)\"\\s*:\\s*(\\d+)");

  /** The numeric details of each {@code compact} entry of {@code id} in the operations log, oldest first. */
  private static List<Map<String, Long>> compactEntries(FeatureStore store, TableId id) {
    List<Map<String, Long>> out = new java.util.ArrayList<>();
    try (dev.featurestore.QueryResult entries = store.operations()) {
      for (dev.featurestore.Row row : entries) {
        if (!"compact".equals(row.get("operation")) || !id.toString().equals(row.get("table_name"))) {
          continue;
        }
        Map<String, Long> details = new java.util.HashMap<>();
        java.util.regex.Matcher m = NUMBER.matcher((String) row.get("details"));
        while (m.find()) {
          details.putIfAbsent(m.group(1), Long.parseLong(m.group(2)));
        }
        out.add(details);
      }
    }
    return out;
  }

  /** The sorted values of {@code key} over {@code entries} that have it (and, if {@code positive}, are above zero). */
  private static List<Long> sorted(List<Map<String, Long>> entries, String key, boolean positive) {
    return entries.stream().map(e -> e.get(key)).filter(v -> v != null && (!positive || v > 0)).sorted().toList();
  }

  private static String medianMax(List<Long> values) {
    return values.get(values.size() / 2) + " ms median, " + values.get(values.size() - 1) + " ms max";
  }

  /** What the operations log says the table's compactions did: count, rows carried over, the commit lock's longest hold. */
  private static String compactionLog(FeatureStore store, TableId id) {
    List<Map<String, Long>> entries = compactEntries(store, id);
    long rows = entries.stream().mapToLong(e -> e.getOrDefault("carried_deletes", 0L)).sum();
    long rewritten = entries.stream().mapToLong(e -> e.getOrDefault("rewritten_files", 0L)).sum();
    List<Long> locks = sorted(entries, "lock_ms", false);
    List<Long> commits = sorted(entries, "commit_ms", false);
    List<Long> prepares = sorted(entries, "prepare_ms", false);
    List<Long> cleanups = sorted(entries, "cleanup_lock_ms", true);
    return entries.size() + " compactions in the operations log, " + rewritten + " data files rewritten, " + rows
        + " deletes carried over, commit lock held " + (locks.isEmpty() ? "-" : medianMax(locks)
        + (commits.isEmpty() ? "" : " (the commit itself " + medianMax(commits) + ")"))
        + (prepares.isEmpty() ? "" : "; prepared before the lock in " + medianMax(prepares))
        + (cleanups.isEmpty() ? "" : "; " + cleanups.size() + " removals of the vectors left pointing at removed files held "
            + "the lock " + medianMax(cleanups));
  }

  /**
   * The compactions of {@code id} in the operations log after the first {@code seen[slot]}: how
   * many, data files and bytes rewritten, and their time (each compaction's {@code elapsed_ms}),
   * so the cost of a round can be followed against the stream's age.
   */
  private static String rounds(FeatureStore store, TableId id, long[] seen, int slot) {
    List<Map<String, Long>> all = compactEntries(store, id);
    List<Map<String, Long>> entries = all.subList((int) Math.min(seen[slot], all.size()), all.size());
    seen[slot] = all.size();
    long rewrittenFiles = entries.stream().mapToLong(e -> e.getOrDefault("rewritten_files", 0L)).sum();
    long rewrittenBytes = entries.stream().mapToLong(e -> e.getOrDefault("rewritten_bytes", 0L)).sum();
    long maxBytes = entries.stream().mapToLong(e -> e.getOrDefault("rewritten_bytes", 0L)).max().orElse(0);
    long ms = entries.stream().mapToLong(e -> e.getOrDefault("elapsed_ms", 0L)).sum();
    long maxMs = entries.stream().mapToLong(e -> e.getOrDefault("elapsed_ms", 0L)).max().orElse(0);
    return entries.isEmpty() ? "none" : String.format(
        "%d (%d files, %.1f MB rewritten, at most %.1f MB in one; %d ms, at most %d ms)",
        entries.size(), rewrittenFiles, rewrittenBytes / 1e6, maxBytes / 1e6, ms, maxMs);
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
