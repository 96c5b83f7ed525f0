package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdcPipelineTest {
  @TempDir Path dir;

  private CdcPipeline.Builder both(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("s1")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO);
  }

  @Test
  void changeLogAndCurrentState_insertUpdateDelete_flushReportsWhatItDid() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = both(store).build()) {
      assertThat(cdc.insert("users", "1", Map.of("id", 1, "name", "Ann"))).isEqualTo(1);
      assertThat(cdc.insert("users", "2", Map.of("id", 2, "name", "Bob"))).isEqualTo(2);
      assertThat(cdc.update("users", "1", Map.of("id", 1, "name", "Ann"), Map.of("id", 1, "name", "Anna"))).isEqualTo(3);
      assertThat(cdc.delete("users", "2", Map.of("id", 2, "name", "Bob"))).isEqualTo(4);

      FlushResult flushed = cdc.flush();

      assertThat(flushed.entries()).isEqualTo(4);
      assertThat(flushed.firstSequence()).hasValue(1);
      assertThat(flushed.lastSequence()).hasValue(4);
      assertThat(flushed.filesWritten()).isEqualTo(2); // one change-log file, one current-state bucket file... or more
      assertThat(flushed.bytesWritten()).isPositive();
      assertThat(flushed.snapshotId()).isPresent();
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
      Record update = CdcTestSupport.rows(store, LOG).stream().filter(r -> (Long) r.getField("seq") == 3).findFirst().orElseThrow();
      assertThat(update.getField("op")).isEqualTo("update");
      assertThat(update.getField("shard")).isEqualTo("s1");
      assertThat(update.getField("collection")).isEqualTo("users");
      assertThat(update.getField("doc_id")).isEqualTo("1");
      assertThat(Json.read((String) update.getField("before"))).isEqualTo(Map.of("id", 1, "name", "Ann"));
      assertThat(Json.read((String) update.getField("after"))).isEqualTo(Map.of("id", 1, "name", "Anna"));
      assertThat(update.getField("commit_time")).isNotNull();

      Map<String, Record> state = CdcTestSupport.state(store, STATE);
      assertThat(state).containsOnlyKeys("users/1");
      assertThat(state.get("users/1").getField("name")).isEqualTo("Anna");
      assertThat(state.get("users/1").getField("_seq")).isEqualTo(3L);

      Table log = store.table(LOG).unwrap(Table.class);
      log.refresh();
      assertThat(log.currentSnapshot().summary()).containsEntry("featurestore.cdc.shard.s1.max-seq", "4");
      assertThat(cdc.metrics().lastCommittedSequence()).hasValue(4);
      assertThat(cdc.metrics().flushed()).isEqualTo(4);
      assertThat(cdc.metrics().pending()).isZero();
    }
  }

  @Test
  void restart_continuesSequences_andReplaysNothing() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = both(store).build()) {
        cdc.insert("users", "1", Map.of("v", 1));
        cdc.insert("users", "2", Map.of("v", 2));
      } // close flushes
      try (CdcPipeline cdc = both(store).build()) {
        assertThat(cdc.recoveredEntries()).isZero();
        assertThat(cdc.lastAcceptedSequence()).isEqualTo(2);
        assertThat(cdc.insert("users", "3", Map.of("v", 3))).isEqualTo(3);
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(CdcTestSupport.state(store, STATE)).containsOnlyKeys("users/1", "users/2", "users/3");
    }
  }

  @Test
  void existingTables_withoutTheModesColumns_areRefused() {
    Schema plain = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      store.createTable(TableDefinition.builder(LOG, plain).build());
      store.createTable(TableDefinition.builder(STATE, plain).build());
      assertThatThrownBy(() -> CdcPipeline.builder(store).changeLog(LOG).shardId("s1")
              .writeAheadLog(dir.resolve("wal")).build())
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot use table cdc.events as a CDC change log: missing column: op string");
      assertThatThrownBy(() -> CdcPipeline.builder(store).currentState(STATE).shardId("s2")
              .writeAheadLog(dir.resolve("wal")).build())
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot use table cdc.docs as a CDC current state: missing column: collection string");
    }
  }
}
