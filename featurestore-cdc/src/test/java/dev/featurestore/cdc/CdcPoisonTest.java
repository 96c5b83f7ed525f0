package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One entry must never wedge the current-state pipeline. */
class CdcPoisonTest {
  @TempDir Path dir;

  @Test
  void documentWith100kFields_typedColumnsCapped_restStaysInDoc_pipelineKeepsGoing() {
    Map<String, Object> wide = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      wide.put("f" + i, i);
    }
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).shardId("p").writeAheadLog(dir.resolve("wal"))
          .flushInterval(Duration.ZERO).build()) {
        cdc.insert("users", "1", Map.of("v", 1));
        cdc.insert("users", "wide", wide);
        cdc.insert("users", "3", Map.of("v", 3));
        FlushResult flushed = cdc.flush();
        assertThat(flushed.entries()).isEqualTo(3);
        assertThat(cdc.deadLetters()).isEmpty();
        cdc.insert("users", "4", Map.of("v", 4));
        cdc.flush();
      }
      Table table = store.table(STATE).unwrap(Table.class);
      table.refresh();
      int fixed = CdcTables.currentStateSchema().columns().size();
      assertThat(table.schema().columns()).hasSize(fixed + 1_000); // "v" and 999 of the wide document's fields
      Map<String, Record> state = CdcTestSupport.state(store, STATE);
      assertThat(state).containsOnlyKeys("users/1", "users/wide", "users/3", "users/4");
      Map<String, Object> doc = Json.read((String) state.get("users/wide").getField("_doc"));
      assertThat(doc).hasSize(100_000).containsEntry("f99999", 99_999);
    }
  }

  @Test
  void typedColumnCap_isConfigurable() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).shardId("p").writeAheadLog(dir.resolve("wal"))
          .currentStateTypedColumns(2).build()) {
        cdc.insert("users", "1", Map.of("a", 1, "b", 2, "c", 3, "d", 4));
        cdc.flush();
      }
      Table table = store.table(STATE).unwrap(Table.class);
      table.refresh();
      assertThat(table.schema().columns()).hasSize(CdcTables.currentStateSchema().columns().size() + 2);
      assertThat(Json.read((String) CdcTestSupport.state(store, STATE).get("users/1").getField("_doc"))).hasSize(4);
    }
  }

  @Test
  void entryTheTableCannotTake_deadLettered_othersCommitted_neverReplayed() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("p")
          .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO).retryBackoff(Duration.ZERO).build()) {
        cdc.insert("users", "1", Map.of("v", 1));
        cdc.insert("users", "2", Map.of("a.b", 2)); // Iceberg refuses a top-level column with a dot
        cdc.insert("users", "3", Map.of("v", 3));
        cdc.insert("users", "4", Map.of("v", 4));
        FlushResult flushed = cdc.flush();
        assertThat(flushed.entries()).isEqualTo(4);
        assertThat(cdc.deadLetters()).singleElement().satisfies(d -> {
          assertThat(d.entry().sequenceId()).isEqualTo(2);
          assertThat(d.reason()).startsWith("Cannot apply CDC entry to current state: writing it failed: ");
        });
        assertThat(cdc.metrics().deadLetters()).isEqualTo(1);
        assertThat(cdc.marks()).containsEntry("cdc.docs", 4L).containsEntry("cdc.events", 4L);
        cdc.insert("users", "5", Map.of("v", 5));
        cdc.flush();
      }
      assertThat(CdcTestSupport.state(store, STATE)).containsOnlyKeys("users/1", "users/3", "users/4", "users/5");
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
      try (CdcPipeline reopened = CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("p")
          .writeAheadLog(dir.resolve("wal")).build()) {
        assertThat(reopened.recoveredEntries()).isZero();
      }
    }
  }
}
