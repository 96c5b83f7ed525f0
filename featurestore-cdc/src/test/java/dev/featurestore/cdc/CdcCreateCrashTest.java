package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CdcPipeline.build} on a new store killed with SIGKILL when its first table's first
 * metadata file has appeared (0 bytes or complete), before the catalog row: building the pipeline
 * again creates or completes the tables and the pipeline runs.
 */
class CdcCreateCrashTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "first metadata file {0}")
  @ValueSource(strings = {"empty", "complete"})
  void buildKilledAtFirstMetadataFile_buildAgain_createsTheTablesAndRuns(String point) throws Exception {
    Path store = dir.resolve("store");
    Path wal = dir.resolve("wal");
    try (ChildJvm child = ChildJvm.start(CdcCreateCrashChild.class, dir, store.toString(), wal.toString(), point)) {
      String paused = child.await("PAUSED ", Duration.ofSeconds(90))
          .orElseThrow(() -> new AssertionError("child did not pause: " + child.lines()));
      child.kill();
      Path file = Path.of(paused.substring("PAUSED ".length()));
      assertThat(file.toString()).contains("/warehouse/cdc/events/metadata/");
      assertThat(Files.size(file) == 0).isEqualTo(point.equals("empty"));
    }

    try (FeatureStore fs = FeatureStore.openLocal(store)) {
      assertThat(fs.listTables()).isEmpty();
      try (CdcPipeline cdc = CdcPipeline.builder(fs).changeLog(CdcTestSupport.LOG).currentState(CdcTestSupport.STATE)
          .shardId("s").writeAheadLog(wal).flushInterval(Duration.ZERO).build()) {
        cdc.insert("users", "1", Map.of("v", 1));
        cdc.insert("users", "2", Map.of("v", 2));
        cdc.update("users", "1", Map.of("v", 10));
        cdc.flush();
      }
      assertThat(fs.listTables()).containsExactly(CdcTestSupport.STATE, CdcTestSupport.LOG);
      assertThat(CdcTestSupport.sequences(fs, CdcTestSupport.LOG)).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(CdcTestSupport.rows(fs, CdcTestSupport.STATE)).hasSize(2);
    }
  }
}
