package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real process death: a child JVM streams entries, acknowledging each accepted sequence on
 * stdout, and is killed with SIGKILL ({@link ChildJvm#kill()}) while paused at a named
 * point (a hook), or while running on after a random number of acknowledgements. After a restart
 * in this JVM, the tables hold every acknowledged entry exactly once: the change log holds
 * sequences 1..M with M the last acknowledged one or the one in flight when the child died, and
 * the current state equals the model after M.
 */
@Execution(ExecutionMode.CONCURRENT)
class CdcCrashTest {
  private static final long TOTAL = 40;
  private static final int BATCH = 7;

  @TempDir Path dir;

  /** One child run: what it acknowledged and how it ended. */
  record Run(List<Long> acked, boolean paused, boolean done, List<String> lines) {
    long maxAcked() {
      return acked.stream().mapToLong(Long::longValue).max().orElse(0);
    }
  }

  /**
   * Runs the child until it pauses at {@code point} (or ends), or, with {@code killAfterAcks} of
   * 0 or more, until it has acknowledged that many entries after its start, then kills it; the
   * run holds every line it printed.
   */
  private Run runChild(String mode, String point, int occurrence, int killAfterAcks) throws Exception {
    Duration timeout = Duration.ofSeconds(90);
    try (ChildJvm child = ChildJvm.start(CdcCrashChild.class, dir, dir.resolve("store").toString(),
        dir.resolve("wal").toString(), mode, point, Integer.toString(occurrence), Long.toString(TOTAL),
        Integer.toString(BATCH))) {
      if (killAfterAcks < 0) {
        child.await("PAUSED", timeout); // or the end, if it never pauses
      } else if (child.await("STARTED", timeout).isPresent() && killAfterAcks > 0) {
        child.awaitNth("ACK ", killAfterAcks, timeout); // the child goes on: the kill lands anywhere after it
      }
      child.kill(); // SIGKILL on Linux
      List<String> lines = child.lines();
      List<Long> acked = lines.stream().filter(l -> l.startsWith("ACK ")).map(l -> Long.parseLong(l.substring(4))).toList();
      return new Run(acked, lines.stream().anyMatch(l -> l.startsWith("PAUSED")), lines.contains("DONE"), lines);
    }
  }

  /** Restarts in this JVM, flushes, closes, and checks exactly-once against everything acknowledged. */
  private void restartAndVerify(String mode, Set<Long> acked) {
    restartAndVerify(mode, acked, List.of());
  }

  /** As {@link #restartAndVerify(String, Set)}; {@code runs} (what each child printed) go into failure messages. */
  private void restartAndVerify(String mode, Set<Long> acked, List<Run> runs) {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = CdcCrashChild.pipeline(store, dir.resolve("wal"), mode, BATCH).build()) {
        cdc.flush();
        assertThat(cdc.metrics().pending()).isZero();
      }
      long maxAcked = acked.stream().mapToLong(Long::longValue).max().orElse(0);
      long last;
      if (!CdcCrashChild.stateOnly(mode)) {
        List<Long> seqs = CdcTestSupport.sequences(store, CdcTestSupport.LOG);
        assertThat(new HashSet<>(seqs)).as("no duplicates in the change log").hasSize(seqs.size());
        assertThat(seqs).as("every acknowledged entry").containsAll(acked);
        last = seqs.stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(last).as("at most the entry in flight beyond the acknowledged; the children printed "
            + runs.stream().map(Run::lines).toList()).isBetween(maxAcked, maxAcked + 1);
        assertThat(seqs).as("contiguous").hasSize((int) last);
        for (Record r : CdcTestSupport.rows(store, CdcTestSupport.LOG)) {
          long seq = (Long) r.getField("seq");
          assertThat(r.getField("doc_id")).isEqualTo(CdcCrashChild.docId(seq));
          assertThat(r.getField("collection")).isEqualTo(CdcCrashChild.collection(seq));
        }
      } else {
        last = -1;
      }
      if (!mode.equals("LOG")) {
        Map<String, Record> state = CdcTestSupport.state(store, CdcTestSupport.STATE); // fails on a duplicate
        Map<String, Long> actual = new TreeMap<>();
        state.forEach((k, r) -> actual.put(k, ((Number) r.getField("k")).longValue()));
        if (last >= 0) {
          assertThat(actual).isEqualTo(CdcCrashChild.model(last));
        } else {
          assertThat(actual).isIn(CdcCrashChild.model(maxAcked), CdcCrashChild.model(maxAcked + 1));
        }
      }
      // the restart deleted what the killed batch had written and not committed
      for (var table : List.of(CdcTestSupport.LOG, CdcTestSupport.STATE)) {
        if (store.findTable(table).isPresent()) {
          assertThat(CdcTestSupport.unreferencedDataFiles(store, table)).as("unreferenced data files of " + table).isEmpty();
        }
      }
    }
    try (Stream<Path> markers = Files.list(dir.resolve("wal").resolve("crash"))) {
      assertThat(markers.filter(p -> p.getFileName().toString().startsWith("pending-")))
          .as("no batch marker is left").isEmpty();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    try (Stream<Path> segments = Files.list(dir.resolve("wal").resolve("crash"))) {
      assertThat(segments.filter(p -> p.getFileName().toString().startsWith("wal-")))
          .as("every committed write-ahead log segment is deleted").isEmpty();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest(name = "{0} killed at {1} #{2}")
  @CsvSource({
      "LOG, wal.torn, 5",
      "LOG, flush.mid-write, 2",
      "LOG, flush.files-written, 2",
      "LOG, commit.before, 2",
      "LOG, io.manifest-list, 2",
      "LOG, io.metadata-json, 4",
      "LOG, commit.after, 1",
      "LOG, wal.truncated, 2",
      "STATE, wal.torn, 9",
      "STATE, flush.mid-write, 2",
      "STATE, flush.files-written, 3",
      "STATE, commit.before, 2",
      "STATE, io.metadata-json, 4",
      "STATE, commit.after, 2",
      "STATE, io.puffin, 2",
      "STATE, flush.deletes-written, 2",
      "STATE, flush.deletes-written, 4",
      "BOTH, flush.deletes-written, 3",
      "COW, flush.mid-write, 2",
      "COW, flush.files-written, 3",
      "COW, commit.before, 2",
      "COW, commit.after, 2",
      "BOTH, commit.after, 1",
      "BOTH, commit.after, 2",
      "BOTH, commit.before, 2",
      "BOTH, io.metadata-json, 5",
  })
  void killedAtNamedPoint_restart_holdsExactlyTheAcknowledgedEntries(String mode, String point, int occurrence) throws Exception {
    Run run = runChild(mode, point, occurrence, -1);

    assertThat(run.paused()).as("child reached " + point).isTrue();
    restartAndVerify(mode, new HashSet<>(run.acked()));
  }

  @Test
  void killedTwice_secondTimeDuringRecovery_restart_holdsExactlyTheAcknowledgedEntries() throws Exception {
    Run first = runChild("BOTH", "commit.after", 1, -1);
    Run second = runChild("BOTH", "recovery.loaded", 1, -1);

    assertThat(first.paused()).isTrue();
    assertThat(second.paused()).isTrue();
    assertThat(second.acked()).isEmpty();
    restartAndVerify("BOTH", new HashSet<>(first.acked()));
  }

  @Test
  void killedAtRandomPoints_threeRunsInARow_holdsExactlyTheAcknowledgedEntries() throws Exception {
    Random random = new Random(42);
    Set<Long> acked = new HashSet<>();
    List<Run> runs = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Run run = runChild("BOTH", "none", 1, random.nextInt(BATCH * 2));
      acked.addAll(run.acked());
      runs.add(run);
    }
    restartAndVerify("BOTH", acked, runs);
  }
}
