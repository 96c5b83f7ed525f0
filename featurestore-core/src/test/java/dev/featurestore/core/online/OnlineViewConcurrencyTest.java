package dev.featurestore.core.online;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers during materializations: each generation gives every key the value of the generation,
 * so a reader that saw part of a materialization would see two values in one batch, or a value
 * that does not belong to the snapshot the read reports.
 */
class OnlineViewConcurrencyTest {
  private static final int KEYS = 3_000;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  @Test
  void readers_neverSeeAHalfAppliedSnapshot() throws Exception {
    Map<Long, Double> valueOfSnapshot = new ConcurrentHashMap<>();
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      OnlineView view = store.onlineView(OnlineViewDefinition.builder("concurrent", SyntheticFeatures.TABLE_ID)
          .key("entity_id").eventTime("event_time").features("feature_a").readConnections(4).build());
      valueOfSnapshot.put(append(table, 0), 0.0);
      view.materialize();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong batches = new AtomicLong();
      ExecutorService readers = Executors.newFixedThreadPool(4);
      List<Future<?>> running = new ArrayList<>();
      List<Long> keys = LongStream.range(0, KEYS).boxed().toList();
      for (int r = 0; r < 4; r++) {
        int reader = r;
        running.add(readers.submit(() -> {
          while (!stop.get()) {
            if (reader % 2 == 0) {
              OnlineBatch batch = view.get(keys, List.of("feature_a"));
              Double expected = valueOfSnapshot.get(batch.snapshotId());
              assertThat(expected).isNotNull();
              assertThat(batch.rows()).allSatisfy(row -> assertThat(row.values()).containsExactly(Map.entry("feature_a", expected)));
              batches.incrementAndGet();
            } else {
              OnlineRow row = view.get((long) (batches.get() % KEYS));
              assertThat(row.values()).containsExactly(Map.entry("feature_a", valueOfSnapshot.get(row.snapshotId())));
            }
          }
          return null;
        }));
      }
      for (int g = 1; g <= 6; g++) {
        valueOfSnapshot.put(append(table, g), (double) g);
        long before = batches.get();
        if (g % 3 == 0) {
          view.rebuild();
        } else {
          view.materialize();
        }
        while (batches.get() < before + 2 && running.stream().noneMatch(Future::isDone)) {
          Thread.onSpinWait(); // let the readers read this generation too
        }
      }
      stop.set(true);
      for (Future<?> f : running) {
        f.get(); // rethrows a reader's failed assertion
      }
      readers.shutdown();
      assertThat(batches.get()).isGreaterThan(6);
    }
  }

  private static long append(FeatureTable table, int g) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long k = 0; k < KEYS; k++) {
      rows.add(Map.of("entity_id", k, "event_time", OffsetDateTime.ofInstant(T0.plusSeconds(g), ZoneOffset.UTC),
          "feature_a", (double) g));
    }
    return table.append(rows).snapshotId().orElseThrow();
  }
}
