package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.LookupResult;
import dev.featurestore.PointLookup;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property: after any random sequence of insert/update/delete batches into a merge-on-read
 * current state, from two shards (each the other's foreign commits), with compaction running
 * concurrently with a batch's commit and snapshot expiry between batches, the current state is
 * the last image of every live document, as read by Iceberg's reader, the core query
 * ({@code TimeTravelQuery}) and point lookups; and the same after a restart (index rebuilt).
 */
class CdcMergeOnReadPropertyTest {
  private static final int DOCS = 40;

  @TempDir Path dir;

  private CdcPipeline open(FeatureStore store, String shard) {
    return CdcPipeline.builder(store).currentState(STATE).shardId(shard).writeAheadLog(dir.resolve("wal"))
        .batchSize(1_000).flushInterval(Duration.ZERO).commitRetries(50).retryBackoff(Duration.ofMillis(2)).build();
  }

  private static String docId(int d) {
    return "c" + (d % 2) + "-d" + d;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void randomBatches_withCompactionExpiryAndForeignCommits_everyReaderSeesTheLastImages(long seed) throws Exception {
    Random random = new Random(seed);
    Map<String, Integer> model = new TreeMap<>();
    int version = 0;
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        FeatureStore other = FeatureStore.openLocal(dir.resolve("store"))) {
      CdcPipeline a = open(store, "a");
      CdcPipeline b = open(other, "b");
      FeatureTable table = store.table(STATE);
      for (int batch = 0; batch < 25; batch++) {
        CdcPipeline writer = random.nextInt(5) == 0 ? b : a;
        int size = 1 + random.nextInt(12);
        for (int i = 0; i < size; i++) {
          int d = random.nextInt(DOCS);
          String collection = "c" + (d % 2);
          String key = collection + "/" + docId(d);
          int op = random.nextInt(10);
          if (op < 3 && model.containsKey(key)) {
            writer.delete(collection, docId(d));
            model.remove(key);
          } else {
            version++;
            writer.createEntry(model.containsKey(key) ? "update" : "insert", collection, docId(d), null,
                Map.of("v", version, "d", d));
            model.put(key, version);
          }
        }
        CompletableFuture<Void> compaction = null;
        if (random.nextInt(4) == 0) {
          // runs while the batch commits: one of the two fails its validation and is redone (the batch) or skipped
          compaction = CompletableFuture.runAsync(() -> {
            try {
              store.table(STATE).maintenance().compact().execute();
            } catch (CommitConflictException e) {
              // the batch won the race
            }
          });
        }
        writer.flush();
        if (compaction != null) {
          compaction.get();
        }
        if (random.nextInt(5) == 0) {
          table.maintenance().expireSnapshots().retainLast(1 + random.nextInt(3)).execute();
        }
        if (batch % 5 == 4) {
          assertEveryReader(store, model);
        }
      }
      a.close();
      b.close();
      assertEveryReader(store, model);
      try (CdcPipeline again = open(store, "a")) {
        updateEveryThird(again, model, version); // a fresh index, built from the table
      }
      assertEveryReader(store, model);
    }
  }

  /** Updates every third document through {@code cdc} (one batch) and the model; returns the last version. */
  static int updateEveryThird(CdcPipeline cdc, Map<String, Integer> model, int version) {
    int v = version;
    for (int d = 0; d < DOCS; d += 3) {
      String collection = "c" + (d % 2);
      v++;
      cdc.update(collection, docId(d), Map.of("v", v, "d", d));
      model.put(collection + "/" + docId(d), v);
    }
    cdc.flush();
    return v;
  }

  /** Iceberg's reader, the core query and point lookups all return the model. */
  static void assertEveryReader(FeatureStore store, Map<String, Integer> model) {
    assertThat(CdcMergeOnReadTest.versions(store)).as("Iceberg's generic reader").isEqualTo(model);
    Map<String, Integer> queried = new TreeMap<>();
    try (QueryResult rows = store.table(STATE).query().execute()) {
      for (Row row : rows) {
        Integer previous = queried.put(row.get("collection") + "/" + row.get("doc_id"), ((Number) row.get("v")).intValue());
        assertThat(previous).as("one row per document").isNull();
      }
    }
    assertThat(queried).as("TimeTravelQuery").isEqualTo(model);
    PointLookup lookup = store.table(STATE).lookup(CdcTables.DOC_ID);
    List<String> keys = new ArrayList<>();
    for (int d = 0; d < DOCS; d++) {
      keys.add("c" + (d % 2) + "/" + docId(d));
    }
    for (String key : keys) {
      LookupResult hit = lookup.get(key.substring(key.indexOf('/') + 1));
      Optional<Integer> found = hit.row().map(r -> ((Number) r.get("v")).intValue());
      assertThat(found).as("lookup of " + key).isEqualTo(Optional.ofNullable(model.get(key)));
    }
  }
}
