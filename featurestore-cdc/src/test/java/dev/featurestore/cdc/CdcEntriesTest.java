package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static dev.featurestore.core.testing.Await.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Entries: validation with exact messages, ordering, same-doc changes, large documents, batching, backpressure. */
class CdcEntriesTest {
  @TempDir Path dir;
  private FeatureStore store;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private CdcPipeline.Builder both() {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("e")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO);
  }

  @Test
  void invalidEntries_rejectedWithExactMessages_nothingAccepted() {
    try (CdcPipeline cdc = both().build()) {
      assertThatThrownBy(() -> cdc.createEntry("upsert", "users", "1", null, Map.of("a", 1)))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: unknown operation: upsert");
      assertThatThrownBy(() -> cdc.createEntry("insert", "users", null, null, Map.of("a", 1)))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: missing doc id: insert into users");
      assertThatThrownBy(() -> cdc.createEntry("update", "users", " ", null, Map.of("a", 1)))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: missing doc id: update into users");
      assertThatThrownBy(() -> cdc.createEntry("update", "users", "1", Map.of("a", 1), null))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: update without an after image: users/1");
      assertThatThrownBy(() -> cdc.createEntry("insert", "users", "1", null, null))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: insert without an after image: users/1");
      assertThatThrownBy(() -> cdc.createEntry("delete", "users", null, null, null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot create CDC entry: delete without a doc id or a before image with an id: users");
      assertThatThrownBy(() -> cdc.createEntry("insert", "", "1", null, Map.of()))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot create CDC entry: missing collection");
      assertThatThrownBy(() -> cdc.append(CdcEntry.builder().operation("insert").collection("c").docId("1")
          .after(Map.of()).shardId("other").build()))
          .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot accept CDC entry: wrong shard: other, this pipeline writes e");

      assertThat(cdc.lastAcceptedSequence()).isZero();
      assertThat(cdc.metrics().accepted()).isZero();
      // a delete may name its document by its before image
      assertThat(cdc.createEntry("d", "users", null, Map.of("id", 7), null)).isEqualTo(1);
    }
  }

  @Test
  void entryFromParts_ownSequenceIds_mustIncrease() {
    try (CdcPipeline cdc = both().build()) {
      CdcEntry entry = CdcEntry.builder().sequenceId(100).operation(CdcOperation.INSERT).collection("users").docId("1")
          .after(Map.of("name", "Ann")).transactionId("tx-1").build();
      assertThat(cdc.append(entry)).isEqualTo(100);
      assertThatThrownBy(() -> cdc.append(entry.toBuilder().sequenceId(50).build()))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot accept CDC entry: sequence id not above the shard's last: 50 <= 100");
      assertThat(cdc.insert("users", "2", Map.of("name", "Bob"))).isEqualTo(101);
      cdc.flush();
      Record row = CdcTestSupport.rows(store, LOG).stream().filter(r -> (Long) r.getField("seq") == 100).findFirst().orElseThrow();
      assertThat(row.getField("txn")).isEqualTo("tx-1");
    }
  }

  @Test
  void sameDocInOneBatch_andAcrossBatches_lastChangeWins_deletesRemove() {
    try (CdcPipeline cdc = both().build()) {
      cdc.insert("users", "1", Map.of("v", 1));
      cdc.update("users", "1", Map.of("v", 2));
      cdc.delete("users", "1");
      cdc.insert("users", "2", Map.of("v", 1));
      cdc.update("users", "2", Map.of("v", 2));
      cdc.insert("users", "3", Map.of("v", 1));
      cdc.delete("users", "3");
      cdc.insert("users", "3", Map.of("v", 3));
      cdc.flush();
      assertThat(values(CdcTestSupport.state(store, STATE))).isEqualTo(Map.of("users/2", 2, "users/3", 3));

      cdc.delete("users", "2");
      cdc.update("users", "3", Map.of("v", 4));
      cdc.insert("users", "1", Map.of("v", 5));
      cdc.flush();
      assertThat(values(CdcTestSupport.state(store, STATE))).isEqualTo(Map.of("users/1", 5, "users/3", 4));
      assertThat(CdcTestSupport.sequences(store, LOG)).hasSize(11);
    }
  }

  @Test
  void interleavedCollections_sameDocIdInSeveral_keptApart() {
    try (CdcPipeline cdc = both().build()) {
      cdc.insert("orders", "1", Map.of("v", 1));
      cdc.insert("users", "1", Map.of("v", 2));
      cdc.insert("carts", "1", Map.of("v", 3));
      cdc.update("orders", "1", Map.of("v", 4));
      cdc.delete("users", "1");
      cdc.insert("users", "9", Map.of("v", 5));
      cdc.flush();
      assertThat(values(CdcTestSupport.state(store, STATE)))
          .isEqualTo(Map.of("orders/1", 4, "carts/1", 3, "users/9", 5));
    }
  }

  @Test
  void veryLargeDocument_roundTripsThroughLogAndTables() {
    Map<String, Object> big = new HashMap<>();
    big.put("blob", "x".repeat(4 * 1024 * 1024));
    big.put("v", 1);
    try (CdcPipeline cdc = both().build()) {
      cdc.insert("files", "big", big);
    }
    try (CdcPipeline cdc = both().build()) { // reopened: nothing to replay
      assertThat(cdc.recoveredEntries()).isZero();
    }
    Record row = CdcTestSupport.state(store, STATE).get("files/big");
    assertThat((String) row.getField("blob")).hasSize(4 * 1024 * 1024);
    assertThat((String) CdcTestSupport.rows(store, LOG).get(0).getField("after")).hasSizeGreaterThan(4 * 1024 * 1024);
  }

  @Test
  void batchSize_flushesInBackground_intervalFlushesStragglers() throws Exception {
    try (CdcPipeline cdc = both().batchSize(5).flushInterval(Duration.ofMillis(200)).build()) {
      for (int i = 0; i < 12; i++) {
        cdc.insert("users", "u" + i, Map.of("v", i));
      }
      // two batches by size, the last two entries by the interval timer, on the background thread
      awaitUntil("every entry flushed in the background", Duration.ofSeconds(20), () -> cdc.metrics().flushed() >= 12);
      CdcMetrics metrics = cdc.metrics();
      assertThat(metrics.flushed()).isEqualTo(12);
      assertThat(metrics.accepted()).isEqualTo(12);
      assertThat(metrics.pending()).isZero();
      assertThat(metrics.commits()).isGreaterThanOrEqualTo(6); // 3 batches x 2 tables
      assertThat(metrics.lastCommittedSequence()).hasValue(12);
      assertThat(metrics.lastCommitLatency()).isPositive();
      assertThat(metrics.lastEventToVisibleLag()).isPositive();
      assertThat(cdc.walSegments()).isZero();
    }
  }

  @Test
  void backpressure_failFast_rejectsWithoutAccepting_blockWaitsForRoom() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Hooks stallCommits = point -> {
      if (point.equals("flush.before-write")) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (CdcPipeline cdc = both().batchSize(2).backpressure(Backpressure.FAIL_FAST, 2).hooks(stallCommits).build()) {
      try {
        cdc.insert("users", "1", Map.of("v", 1));
        cdc.insert("users", "2", Map.of("v", 2)); // seals a batch; its commit stalls

        assertThatThrownBy(() -> cdc.insert("users", "3", Map.of("v", 3)))
            .isInstanceOf(CdcBackpressureException.class)
            .hasMessage("Cannot accept CDC entry: 2 entries are pending, the bound is 2: commits are falling behind");
        assertThat(cdc.lastAcceptedSequence()).isEqualTo(2);
      } finally {
        release.countDown(); // so close() can flush, also after a failed assertion
      }
    }
    CountDownLatch release2 = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    Hooks stall2 = point -> {
      if (point.equals("flush.before-write")) {
        try {
          release2.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      } else if (point.equals("accept.blocked")) {
        blocked.countDown();
      }
    };
    try (CdcPipeline cdc = both().batchSize(2).backpressure(Backpressure.BLOCK, 2).hooks(stall2).build()) {
      FutureTask<Long> third = new FutureTask<>(() -> cdc.insert("users", "6", Map.of("v", 6)));
      try {
        cdc.insert("users", "4", Map.of("v", 4));
        cdc.insert("users", "5", Map.of("v", 5));
        new Thread(third, "blocked-insert").start();
        assertThat(blocked.await(60, TimeUnit.SECONDS)).as("the insert waits for room").isTrue();
        assertThat(third).as("no room while the commit stalls").isNotDone();
        assertThat(cdc.lastAcceptedSequence()).isEqualTo(4);
      } finally {
        release2.countDown();
      }
      assertThat(third.get(60, TimeUnit.SECONDS)).isEqualTo(5); // accepted once the stalled commit landed
    }
    assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void secondPipelineOnSameShard_refused() {
    try (CdcPipeline cdc = both().build()) {
      assertThatThrownBy(() -> both().build()).isInstanceOf(InvalidStateException.class)
          .hasMessageStartingWith("Cannot open CDC pipeline: shard e is in use by another pipeline: ");
    }
  }

  @Test
  void builder_checksOptions() {
    assertThatThrownBy(() -> CdcPipeline.builder(store).writeAheadLog(dir).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build CDC pipeline: no target table: set changeLog or currentState");
    assertThatThrownBy(() -> CdcPipeline.builder(store).changeLog(LOG).build())
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot build CDC pipeline: no write-ahead log directory");
    assertThatThrownBy(() -> CdcPipeline.builder(store).shardId("a/b"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set CDC shard id: only letters, digits, _ . - allowed: a/b");
    assertThatThrownBy(() -> CdcPipeline.builder(store).changeLog(LOG).currentState(LOG).writeAheadLog(dir).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build CDC pipeline: change log and current state need two tables: cdc.events");
    assertThatThrownBy(() -> CdcPipeline.builder(store).changeLog(LOG).writeAheadLog(dir).batchSize(200_000).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build CDC pipeline: pending bound below the batch size: 100000 < 200000");
    assertThatThrownBy(() -> CdcPipeline.builder(store).batchSize(0))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC batch size: must be positive: 0");
    assertThatThrownBy(() -> CdcPipeline.builder(store).flushInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC flush interval: negative: PT-1S");
    assertThatThrownBy(() -> CdcPipeline.builder(store).commitRetries(0))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC commit retries: must be at least 1: 0");
    assertThatThrownBy(() -> CdcPipeline.builder(store).retryBackoff(Duration.ofMillis(-1)))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC retry backoff: negative: PT-0.001S");
    assertThatThrownBy(() -> CdcPipeline.builder(store).backpressure(Backpressure.BLOCK, 0))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC pending bound: must be positive: 0");
    assertThatThrownBy(() -> CdcPipeline.builder(store).currentStateBuckets(0))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot set CDC current-state buckets: must be positive: 0");
  }

  @Test
  void closedPipeline_refusesTyped() {
    CdcPipeline cdc = both().build();
    cdc.close();
    assertThatThrownBy(() -> cdc.insert("users", "1", Map.of("v", 1))).isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot use CDC pipeline: it is closed: e");
    assertThatThrownBy(cdc::flush).isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot use CDC pipeline: it is closed: e");
  }

  private static Map<String, Object> values(Map<String, Record> state) {
    Map<String, Object> values = new HashMap<>();
    state.forEach((k, r) -> values.put(k, r.getField("v")));
    return values;
  }
}
