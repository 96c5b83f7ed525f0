package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

/** Feeds with their own sequence ids: redeliveries are skipped, going backwards is refused, every error typed. */
class CdcSequenceTest {
  @TempDir Path dir;

  private CdcPipeline.Builder pipeline(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("q").writeAheadLog(dir.resolve("wal"))
        .flushInterval(Duration.ZERO);
  }

  private static CdcEntry entry(long seq) {
    return CdcEntry.builder().sequenceId(seq).operation(CdcOperation.INSERT).collection("users").docId("d" + seq)
        .after(Map.of("v", seq)).build();
  }

  @Test
  void redeliveredAtOrBelowTheCommittedMark_skippedAndCounted_backwardsAboveIt_refused() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.append(entry(100))).isEqualTo(100);
        assertThat(cdc.append(entry(101))).isEqualTo(101);
        cdc.flush();
        assertThat(cdc.append(entry(101))).isEqualTo(101); // redelivered: skipped
        assertThat(cdc.append(entry(7))).isEqualTo(7);
        assertThat(cdc.redeliveredEntries()).isEqualTo(2);
        assertThat(cdc.append(entry(110))).isEqualTo(110);
        assertThatThrownBy(() -> cdc.append(entry(105))) // above the mark (101), below the last accepted (110)
            .isInstanceOf(InvalidArgumentException.class)
            .hasMessage("Cannot accept CDC entry: sequence id not above the shard's last: 105 <= 110");
        assertThatThrownBy(() -> cdc.append(entry(110))).isInstanceOf(InvalidArgumentException.class)
            .hasMessage("Cannot accept CDC entry: sequence id not above the shard's last: 110 <= 110");
        cdc.flush();
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(100L, 101L, 110L);
      // after a restart the feed resumes from an older position: what the tables hold is skipped
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.append(entry(101))).isEqualTo(101);
        assertThat(cdc.append(entry(110))).isEqualTo(110);
        assertThat(cdc.append(entry(111))).isEqualTo(111);
        assertThat(cdc.redeliveredEntries()).isEqualTo(2);
        cdc.flush();
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(100L, 101L, 110L, 111L);
    }
  }

  @Test
  void everyPublicEntryPoint_badArguments_typedWithCannotMessage() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      CdcPipeline.Builder b = CdcPipeline.builder(store);
      List<Executable> calls = List.of(
          () -> b.shardId(""), () -> b.shardId("a b"), () -> b.batchSize(-1), () -> b.flushInterval(Duration.ofMillis(-5)),
          () -> b.commitRetries(-1), () -> b.retryBackoff(Duration.ofSeconds(-1)), () -> b.backpressure(Backpressure.FAIL_FAST, -3),
          () -> b.currentStateBuckets(-1), () -> b.currentStateTypedColumns(-1), () -> b.shardLease(Duration.ofMillis(5)),
          () -> CdcPipeline.builder(store).build(),
          () -> CdcPipeline.builder(store).changeLog(LOG).build(),
          () -> pipeline(store).batchSize(10).backpressure(Backpressure.BLOCK, 5).build());
      for (Executable call : calls) {
        assertThatThrownBy(call::execute).isInstanceOf(InvalidArgumentException.class).hasMessageStartingWith("Cannot ");
      }
      try (CdcPipeline cdc = pipeline(store).build()) {
        List<Executable> entries = List.of(
            () -> cdc.createEntry("upsert", "users", "1", null, Map.of()),
            () -> cdc.insert("", "1", Map.of()), () -> cdc.insert("users", null, Map.of()),
            () -> cdc.update("users", "1", null), () -> cdc.delete("users", null),
            () -> cdc.append(CdcEntry.builder().operation("insert").collection("c").docId("1").after(Map.of())
                .shardId("other").build()),
            () -> cdc.insert("users", "1", Map.of("t", new Object())));
        for (Executable call : entries) {
          assertThatThrownBy(call::execute).isInstanceOf(InvalidArgumentException.class).hasMessageStartingWith("Cannot ");
        }
        // a second pipeline on the shard and log directory
        assertThatThrownBy(() -> pipeline(store).build()).isInstanceOf(InvalidStateException.class)
            .hasMessageStartingWith("Cannot open CDC pipeline: shard q is in use by another pipeline: ");
      }
      CdcPipeline closed = pipeline(store).build();
      closed.close();
      for (Executable call : List.<Executable>of(() -> closed.insert("users", "1", Map.of()), closed::flush,
          () -> closed.append(entry(5)))) {
        assertThatThrownBy(call::execute).isInstanceOf(InvalidStateException.class)
            .isInstanceOf(FeatureStoreException.class).hasMessage("Cannot use CDC pipeline: it is closed: q");
      }
    }
  }
}
