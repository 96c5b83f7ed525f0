package dev.featurestore.examples;

import dev.featurestore.FeatureStore;
import dev.featurestore.QueryResult;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcPipeline;
import dev.featurestore.cdc.FsyncPolicy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Streams changes into a change log and a current-state table, crashes on purpose (a child JVM
 * killed with SIGKILL in the middle of streaming), restarts, and shows that every acknowledged
 * change is in the tables exactly once.
 *
 * <pre>
 *   java -cp ... dev.featurestore.examples.CdcCrashDemo [store-dir]
 * </pre>
 */
public final class CdcCrashDemo {
  static final TableId LOG = TableId.of("cdc", "events");
  static final TableId STATE = TableId.of("cdc", "docs");

  private CdcCrashDemo() {}

  static CdcPipeline open(FeatureStore store, Path root) {
    return CdcPipeline.builder(store)
        .changeLog(LOG)
        .currentState(STATE)
        .shardId("demo")
        .writeAheadLog(root.resolve("cdc-wal"))
        .fsync(FsyncPolicy.EVERY_BATCH)
        .batchSize(500)
        .flushInterval(Duration.ofMillis(200))
        .build();
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--child")) {
      child(Path.of(args[1]));
      return;
    }
    Path root = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("cdc-demo-");
    System.out.println("store: " + root);

    // 1. a child process streams changes and prints each acknowledged sequence id
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        CdcCrashDemo.class.getName(), "--child", root.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Set<Long> acked = new HashSet<>();
    long startedAt = System.currentTimeMillis();
    int committedSeen = -1;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("ACK ")) {
          acked.add(Long.parseLong(line.substring(4)));
        }
        if (line.startsWith("COMMITTED ") && committedSeen < 0) {
          committedSeen = acked.size();
        }
        // 2. crash on purpose, once some batches are committed and more are in flight:
        //    SIGKILL, no shutdown hook, no final flush
        if ((committedSeen >= 0 && acked.size() >= committedSeen + 2_000) || System.currentTimeMillis() - startedAt > 120_000) {
          break;
        }
      }
    }
    child.destroyForcibly();
    child.waitFor();
    long maxAcked = acked.stream().mapToLong(Long::longValue).max().orElse(0);
    System.out.printf("killed the streaming process with SIGKILL after %d acknowledged changes (last seq %d)%n",
        acked.size(), maxAcked);

    // 3. restart: the pipeline reads the tables' high-water marks and replays only what is above them
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      try (CdcPipeline cdc = open(store, root)) {
        System.out.printf("restarted: table marks %s, replayed %d changes from the write-ahead log%n",
            cdc.marks(), cdc.recoveredEntries());
        cdc.flush();
      }
      // 4. check: every acknowledged change once, nothing doubled
      TreeSet<Long> seqs = new TreeSet<>();
      long rows = 0;
      try (QueryResult result = store.table(LOG).query().select("seq").execute()) {
        for (var row : result) {
          seqs.add(((Number) row.toMap().get("seq")).longValue());
          rows++;
        }
      }
      boolean allThere = seqs.containsAll(acked);
      boolean noDuplicates = seqs.size() == rows;
      System.out.printf("change log: %d rows, %d distinct sequences, every acknowledged change present: %s, duplicates: %s%n",
          rows, seqs.size(), allThere, noDuplicates ? "none" : "YES");
      System.out.printf("current state: %d documents%n", store.table(STATE).query().count());
      if (!allThere || !noDuplicates) {
        System.exit(1);
      }
      System.out.println("nothing lost, nothing doubled");
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The streaming process: 1,000 users, inserted then updated and sometimes deleted, forever. */
  private static void child(Path root) {
    try (FeatureStore store = FeatureStore.openLocal(root); CdcPipeline cdc = open(store, root)) {
      for (long i = 0; ; i++) {
        String doc = Long.toString(i % 1_000);
        long seq;
        if (i < 1_000) {
          seq = cdc.insert("users", doc, Map.of("id", i, "name", "user-" + i, "visits", 0));
        } else if (i % 97 == 0) {
          seq = cdc.delete("users", doc);
        } else {
          seq = cdc.update("users", doc, Map.of("id", i % 1_000, "name", "user-" + (i % 1_000), "visits", i / 1_000));
        }
        System.out.println("ACK " + seq);
        if (i % 500 == 0 && cdc.metrics().lastCommittedSequence().isPresent()) {
          System.out.println("COMMITTED " + cdc.metrics().lastCommittedSequence().getAsLong());
        }
        if (i % 20 == 0) {
          sleep(1); // a steady stream, not a flood: the demo wants some batches committed before the crash
        }
      }
    }
  }
}
