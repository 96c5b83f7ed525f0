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

/** When a timed batch is sealed: its interval runs from its oldest entry, not from a fixed timer. */
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
}
