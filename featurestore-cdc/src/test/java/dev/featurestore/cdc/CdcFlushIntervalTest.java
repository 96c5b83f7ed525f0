package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a timed batch is sealed: its interval runs from its oldest entry, not from a fixed timer;
 * and the warm-up that keeps the first commit fast leaves no trace.
 */
class CdcFlushIntervalTest {
  @TempDir Path dir;

  /**
   * The flusher of an idle pipeline sleeps a whole interval (10 s here); an entry arriving in that
   * sleep wakes it, so its batch is sealed half an interval after the entry (the lead before any
   * flush was timed), not when the sleep ends. Before the change the batch waited for the sleep
   * (10 s after the build); the bound of 8 s leaves 3 s for a thread wake-up on a loaded machine.
   */
  @Test
  void firstEntryOfAnIdlePipeline_startsItsInterval() throws Exception {
    CountDownLatch sealed = new CountDownLatch(1);
    Hooks hooks = point -> {
      if (point.equals("flush.before-write")) {
        sealed.countDown();
      }
    };
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).shardId("s1").writeAheadLog(dir.resolve("wal"))
            .flushInterval(Duration.ofSeconds(10)).hooks(hooks).build()) {
      Thread.sleep(200); // the flusher is asleep with nothing to flush
      long accepted = System.nanoTime();
      cdc.insert("users", "1", java.util.Map.of("id", 1));
      assertThat(sealed.await(8, TimeUnit.SECONDS)).as("batch sealed within 8 s of its only entry").isTrue();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - accepted)).isGreaterThanOrEqualTo(4_900);
    }
  }

  /**
   * {@code build()} warms the write and commit path up by committing to a table in memory: the
   * target table gets no snapshot, no file and no property from it, no batch marker is left in
   * the log directory, and the hooks (the crash tests' and the lease's seams) are not called.
   */
  @Test
  void warmUp_leavesTheTableAndTheLogUntouched() throws Exception {
    java.util.List<String> points = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).shardId("s1").writeAheadLog(dir.resolve("wal"))
            .flushInterval(Duration.ZERO).hooks(points::add).build()) {
      org.apache.iceberg.Table table = store.table(LOG).unwrap(org.apache.iceberg.Table.class);
      table.refresh();
      assertThat(table.currentSnapshot()).isNull();
      assertThat(table.properties()).doesNotContainKey(CdcTables.markKey("s1"));
      assertThat(points).doesNotContain("flush.before-write", "commit.before", "commit.after");
      Path location = Path.of(java.net.URI.create(table.location().startsWith("/") ? "file:" + table.location() : table.location()));
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(location)) {
        assertThat(files.filter(java.nio.file.Files::isRegularFile)
            .filter(p -> !p.toString().contains("/metadata/"))).isEmpty();
      }
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir.resolve("wal"))) {
        assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("pending-"))).isEmpty();
      }
      assertThat(java.nio.file.Files.exists(Path.of("/featurestore-cdc-warm-up"))).isFalse();
      cdc.insert("users", "1", java.util.Map.of("id", 1));
      cdc.flush();
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactly(1L);
    }
  }
}
