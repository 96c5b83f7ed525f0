package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schema drift in the current state's typed projection: add, promote, or dead-letter with the reason. */
class CdcSchemaDriftTest {
  @TempDir Path dir;

  private CdcPipeline.Builder both(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("d")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO);
  }

  @Test
  void newField_addsColumn_widening_promotes_incompatible_deadLettered() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store")); CdcPipeline cdc = both(store).build()) {
      cdc.insert("users", "1", Map.of("age", 30, "name", "Ann"));
      cdc.flush();
      assertThat(store.table(STATE).schema().findField("age").type()).isEqualTo(Types.IntegerType.get());

      cdc.insert("users", "2", Map.of("age", 5_000_000_000L, "name", "Bob", "score", 1.5)); // widening + new field
      long bad = cdc.update("users", "1", Map.of("age", "thirty", "name", "Ann")); // incompatible
      cdc.flush();

      store.table(STATE).refresh();
      assertThat(store.table(STATE).schema().findField("age").type()).isEqualTo(Types.LongType.get());
      assertThat(store.table(STATE).schema().findField("score").type()).isEqualTo(Types.DoubleType.get());
      List<DeadLetter> dead = cdc.deadLetters();
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).entry().sequenceId()).isEqualTo(bad);
      assertThat(dead.get(0).reason())
          .isEqualTo("Cannot apply CDC entry to current state: field age expects long, got string: \"thirty\"");
      var state = CdcTestSupport.state(store, STATE);
      assertThat(state.get("users/1").getField("age")).isEqualTo(30L); // kept its previous state
      assertThat(state.get("users/2").getField("age")).isEqualTo(5_000_000_000L);
      assertThat(state.get("users/2").getField("score")).isEqualTo(1.5);
      // the change log keeps the entry as it came
      assertThat(CdcTestSupport.sequences(store, LOG)).contains(bad);
      assertThat(cdc.metrics().deadLetters()).isEqualTo(1);
    }
  }

  @Test
  void schemaEvolutionOff_newField_deadLettered() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = both(store).schemaEvolution(false).build()) {
      cdc.insert("users", "1", Map.of("nickname", "A"));
      cdc.flush();
      assertThat(cdc.deadLetters()).extracting(DeadLetter::reason)
          .containsExactly("Cannot apply CDC entry to current state: unknown field and schema evolution is off: nickname");
      assertThat(CdcTestSupport.state(store, STATE)).isEmpty();
      assertThat(cdc.metrics().lastCommittedSequence()).hasValue(1); // processed, not retried
    }
  }

  @Test
  void nestedValues_stayInTheJsonDocument() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store")); CdcPipeline cdc = both(store).build()) {
      cdc.insert("users", "1", Map.of("address", Map.of("city", "Oslo"), "tags", List.of("a", "b"), "_private", 1));
      cdc.flush();
      var row = CdcTestSupport.state(store, STATE).get("users/1");
      assertThat(store.table(STATE).schema().findField("address")).isNull();
      assertThat((String) row.getField("_doc")).contains("\"city\":\"Oslo\"").contains("\"tags\":[\"a\",\"b\"]");
    }
  }
}
