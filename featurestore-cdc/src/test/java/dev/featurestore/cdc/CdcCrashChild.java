package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process a crash test kills: streams deterministic entries, printing {@code ACK <seq>} for
 * each accepted one; at the named point's n-th occurrence prints {@code PAUSED <point>} and waits
 * for its SIGKILL.
 *
 * <p>args: store-dir wal-dir mode(LOG|STATE|COW|BOTH) point occurrence total batch-size (STATE: a merge-on-read
 * current state, the default; COW: a copy-on-write one)
 */
public final class CdcCrashChild {
  private CdcCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path storeDir = Path.of(args[0]);
    Path walDir = Path.of(args[1]);
    String mode = args[2];
    String point = args[3];
    int occurrence = Integer.parseInt(args[4]);
    long total = Long.parseLong(args[5]);
    int batchSize = Integer.parseInt(args[6]);
    PrintStream out = System.out;
    AtomicInteger seen = new AtomicInteger();
    Hooks hooks = p -> {
      if (p.equals(point) && seen.incrementAndGet() == occurrence) {
        synchronized (out) {
          out.println("PAUSED " + p);
          out.flush();
        }
        while (true) {
          try {
            Thread.sleep(60_000); // parks until the test's SIGKILL, which nothing in this process can signal
          } catch (InterruptedException e) {
            // wait for the kill
          }
        }
      }
    };
    LocalFileIO local = new LocalFileIO();
    local.initialize(Map.of());
    FeatureStore store = FeatureStore.builder().root(storeDir).fileIO(new PausingFileIO(local, hooks)).build();
    CdcPipeline cdc = pipeline(store, walDir, mode, batchSize).hooks(hooks).build();
    synchronized (out) {
      out.println("STARTED " + cdc.lastAcceptedSequence());
      out.flush();
    }
    for (long seq = cdc.lastAcceptedSequence() + 1; seq <= total; seq++) {
      long got = submit(cdc, seq);
      if (got != seq) {
        throw new IllegalStateException("sequence " + got + " != " + seq);
      }
      synchronized (out) {
        out.println("ACK " + got);
        out.flush();
      }
    }
    cdc.close();
    store.close();
    synchronized (out) {
      out.println("DONE");
      out.flush();
    }
  }

  static CdcPipeline.Builder pipeline(FeatureStore store, Path walDir, String mode, int batchSize) {
    CdcPipeline.Builder b = CdcPipeline.builder(store).shardId("crash").writeAheadLog(walDir)
        .batchSize(batchSize).flushInterval(Duration.ZERO).currentStateBuckets(4).retryBackoff(Duration.ofMillis(10));
    if (!stateOnly(mode)) {
      b.changeLog(CdcTestSupport.LOG);
    }
    if (!mode.equals("LOG")) {
      b.currentState(CdcTestSupport.STATE);
    }
    if (mode.equals("COW")) {
      b.currentStateLayout(CurrentStateLayout.COPY_ON_WRITE);
    }
    return b;
  }

  static boolean stateOnly(String mode) {
    return mode.equals("STATE") || mode.equals("COW");
  }

  /** The deterministic entry for sequence {@code seq}. */
  static long submit(CdcPipeline cdc, long seq) {
    String collection = collection(seq);
    String docId = docId(seq);
    if (seq % 7 == 0) {
      return cdc.delete(collection, docId);
    }
    return cdc.createEntry(seq % 5 == 0 ? "update" : "insert", collection, docId, null, image(seq));
  }

  static String collection(long seq) {
    return "c" + (seq % 3);
  }

  static String docId(long seq) {
    return "d" + (seq % 11);
  }

  static Map<String, Object> image(long seq) {
    Map<String, Object> after = new LinkedHashMap<>();
    after.put("id", docId(seq));
    after.put("k", seq);
    after.put("name", "n" + seq);
    return after;
  }

  /** The current state after sequences 1..last: collection/doc to k. */
  static Map<String, Long> model(long last) {
    Map<String, Long> state = new java.util.TreeMap<>();
    for (long seq = 1; seq <= last; seq++) {
      String key = collection(seq) + "/" + docId(seq);
      if (seq % 7 == 0) {
        state.remove(key);
      } else {
        state.put(key, seq);
      }
    }
    return state;
  }
}
