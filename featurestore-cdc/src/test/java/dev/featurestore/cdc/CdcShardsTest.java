package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several shards writing the same two tables at once, each from its own store (as separate processes would). */
class CdcShardsTest {
  @TempDir Path dir;

  @Test
  void threeShards_concurrently_everyEntryOnce_eachShardKeepsItsOwnMark() throws Exception {
    int shards = 3;
    int perShard = 60;
    try (FeatureStore setup = FeatureStore.openLocal(dir.resolve("store"))) {
      // create the tables once, so the shards race on commits, not on creation
      CdcPipeline.builder(setup).changeLog(LOG).currentState(STATE).shardId("setup").writeAheadLog(dir.resolve("wal"))
          .currentStateBuckets(4).build().close();
    }
    ExecutorService pool = Executors.newFixedThreadPool(shards);
    List<Future<?>> futures = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      String shard = "s" + s;
      futures.add(pool.submit(() -> {
        try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
            CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId(shard)
                .writeAheadLog(dir.resolve("wal")).batchSize(10).flushInterval(Duration.ZERO).commitRetries(20)
                .retryBackoff(Duration.ofMillis(5)).build()) {
          for (int i = 1; i <= perShard; i++) {
            // each shard owns its documents; every third entry updates an earlier one
            String doc = shard + "-" + (i % 3 == 0 ? i - 1 : i);
            cdc.createEntry(i % 3 == 0 ? "update" : "insert", "docs", doc, null, Map.of("shard", shard, "i", i));
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      List<Record> log = CdcTestSupport.rows(store, LOG);
      assertThat(log).hasSize(shards * perShard);
      assertThat(new HashSet<>(log.stream().map(r -> r.getField("shard") + "/" + r.getField("seq")).toList()))
          .hasSize(shards * perShard);
      var state = CdcTestSupport.state(store, STATE); // fails on duplicates
      assertThat(state).hasSize(shards * perShard * 2 / 3);
      for (String table : List.of(LOG.toString(), STATE.toString())) {
        Table t = store.table(table).unwrap(Table.class);
        for (int s = 0; s < shards; s++) {
          assertThat(CdcTables.readMark(t, "s" + s)).hasValue(perShard);
        }
      }
    }
  }

  /**
   * A change-log commit that Iceberg retried internally after another shard's commit carries the
   * marks it read before the retry: a stale copy of the other shard's mark. Once expiry removes the
   * snapshots that held the true mark, the mark must still be read right (from the table
   * properties), or the shard would replay or reuse sequence ids.
   */
  @Test
  void staleCarriedMark_afterExpiry_shardStillReadsItsTrueMark() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline a = CdcPipeline.builder(store).changeLog(LOG).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(10).build()) {
        for (int i = 1; i <= 30; i++) {
          a.insert("docs", "d" + i, Map.of("i", i));
        }
      }
      Table t = store.table(LOG.toString()).unwrap(Table.class);
      t.refresh();
      // what shard b's retried commit looks like: its own mark and a's mark as read before the retry
      t.newFastAppend().set(CdcTables.markKey("a"), "10").set(CdcTables.markKey("b"), "5").commit();
      store.table(LOG.toString()).maintenance().expireSnapshots().retainLast(1).execute();
      t.refresh();
      assertThat(CdcTables.readMark(t, "a")).hasValue(30);

      try (CdcPipeline a = CdcPipeline.builder(store).changeLog(LOG).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(10).build()) {
        for (int i = 31; i <= 35; i++) {
          a.insert("docs", "d" + i, Map.of("i", i));
        }
      }
      List<Record> log = CdcTestSupport.rows(store, LOG);
      assertThat(log.stream().map(r -> (Long) r.getField("seq")).sorted().toList())
          .isEqualTo(java.util.stream.LongStream.rangeClosed(1, 35).boxed().toList());
    }
  }
}
