package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * An online view over a current-state table fed by a pipeline, materialized from the pipeline's
 * after-commit hook: after each batch of random inserts, updates and deletes the view is at the
 * batch's snapshot and equals the table there (read through TimeTravelQuery); copy-on-write
 * rewrites of the doc-id buckets (copy-on-write) and the replaced deletion vectors (merge-on-read) are
 * followed incrementally.
 */
class CdcOnlineViewTest {
  private static final int DOCS = 60;
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(CurrentStateLayout.class)
  void viewFollowsEachCommit_andEqualsTheCurrentState(CurrentStateLayout layout) {
    SplittableRandom random = new SplittableRandom(17);
    AtomicReference<OnlineView> view = new AtomicReference<>();
    List<OnlineMaterialization> runs = new CopyOnWriteArrayList<>();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = CdcPipeline.builder(store).currentState(CdcTestSupport.STATE).shardId("s1")
            .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO).currentStateBuckets(4)
            .currentStateLayout(layout)
            .afterCommit(() -> {
              OnlineView v = view.get();
              if (v != null) {
                runs.add(v.materialize());
              }
            })
            .build()) {
      Map<String, Long> live = new HashMap<>();
      for (int batch = 0; batch < 12; batch++) {
        for (int i = 0; i < 15; i++) {
          String doc = Integer.toString(random.nextInt(DOCS));
          long score = random.nextLong(1_000_000);
          if (live.containsKey(doc) && random.nextInt(4) == 0) {
            cdc.delete("users", doc);
            live.remove(doc);
          } else {
            cdc.insert("users", doc, Map.of("score", score));
            live.put(doc, score);
          }
        }
        long snapshot = cdc.flush().snapshotId().orElseThrow();
        if (view.get() == null) {
          view.set(store.onlineView(OnlineViewDefinition.builder("users", CdcTestSupport.STATE)
              .key("doc_id").eventTime("_updated_at").features("score").build()));
          view.get().materialize();
        }
        assertThat(view.get().lag().snapshotId()).hasValue(snapshot);
        assertMatches(store, view.get(), snapshot, live);
      }
      assertThat(runs).extracting(OnlineMaterialization::mode).contains(OnlineMaterialization.Mode.INCREMENTAL);
      assertThat(runs).extracting(OnlineMaterialization::mode).doesNotContain(OnlineMaterialization.Mode.FULL);
    }
  }

  private static void assertMatches(FeatureStore store, OnlineView view, long snapshot, Map<String, Long> live) {
    Map<String, Long> expected = new HashMap<>();
    try (QueryResult rows = store.table(CdcTestSupport.STATE).query().asOfSnapshot(snapshot).execute()) {
      for (Row row : rows) {
        expected.put((String) row.get("doc_id"), ((Number) row.get("score")).longValue());
      }
    }
    assertThat(expected).isEqualTo(live);
    List<String> keys = new ArrayList<>(IntStream.range(0, DOCS).mapToObj(Integer::toString).toList());
    OnlineBatch batch = view.get(keys, List.of("score"));
    assertThat(batch.snapshotId()).isEqualTo(snapshot);
    for (OnlineRow row : batch.rows()) {
      Long score = expected.get((String) row.key());
      if (score == null) {
        assertThat(row.status()).as("doc %s", row.key()).isEqualTo(OnlineRow.Status.MISSING);
      } else {
        assertThat(row.values().keySet()).as("doc %s", row.key()).containsExactly("score");
        assertThat(((Number) row.values().get("score")).longValue()).as("doc %s", row.key()).isEqualTo(score);
      }
    }
  }
}
