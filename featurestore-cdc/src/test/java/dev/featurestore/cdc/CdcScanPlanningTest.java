package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.testing.PlanningThreadsFileIO;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The current state's scans (the copy-on-write rewrite's plan, the key index rebuild) start in
 * core's {@code ScanPlanning}: a small local current state is planned on the flushing thread,
 * not on Iceberg's worker pool behind its 10 ms polling.
 */
class CdcScanPlanningTest {
  @TempDir Path dir;

  private CdcPipeline.Builder pipeline(FeatureStore store, CurrentStateLayout layout) {
    return CdcPipeline.builder(store).currentState(STATE).shardId("a").writeAheadLog(dir.resolve("wal"))
        .currentStateLayout(layout).batchSize(1_000).flushInterval(Duration.ZERO).retryBackoff(Duration.ofMillis(5));
  }

  /** Three flushes of ten documents each: a current state of several manifests. */
  private static void threeFlushes(CdcPipeline cdc) {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 10; i++) {
        if (round == 0) {
          cdc.insert("users", "u" + i, Map.of("id", i, "v", round));
        } else {
          cdc.update("users", "u" + i, Map.of("id", i, "v", round));
        }
      }
      cdc.flush();
    }
  }

  private static void assertSeveralManifests(FeatureStore store) {
    Table table = store.table(STATE).unwrap(Table.class);
    assertThat(table.currentSnapshot().dataManifests(table.io()).size()
        + table.currentSnapshot().deleteManifests(table.io()).size()).isGreaterThan(1);
  }

  private static void assertPlannedOffThePool(PlanningThreadsFileIO io) {
    assertThat(io.threads()).as("manifests were read, none on Iceberg's worker pool").isNotEmpty()
        .noneMatch(name -> name.startsWith("iceberg-worker-pool"));
  }

  @Test
  void copyOnWriteRewrite_plansOffThePool() {
    PlanningThreadsFileIO io = new PlanningThreadsFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build();
        CdcPipeline cdc = pipeline(store, CurrentStateLayout.COPY_ON_WRITE).build()) {
      threeFlushes(cdc);
      assertSeveralManifests(store);
      cdc.update("users", "u1", Map.of("id", 1, "v", 9));
      io.reset();
      cdc.flush();
      assertPlannedOffThePool(io);
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(10);
    }
  }

  @Test
  void keyIndexRebuild_plansOffThePool() {
    PlanningThreadsFileIO io = new PlanningThreadsFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build()) {
      try (CdcPipeline cdc = pipeline(store, CurrentStateLayout.MERGE_ON_READ).build()) {
        threeFlushes(cdc);
      }
      assertSeveralManifests(store);
      try (CdcPipeline cdc = pipeline(store, CurrentStateLayout.MERGE_ON_READ).build()) {
        cdc.update("users", "u1", Map.of("id", 1, "v", 9));
        io.reset();
        cdc.flush(); // the restarted pipeline has no key index: rebuilt from a scan first
        assertPlannedOffThePool(io);
      }
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(10);
    }
  }
}
