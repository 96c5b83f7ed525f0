package dev.featurestore.core.online;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process killed (SIGKILL) in the middle of a materialization, incremental or rebuild, after it
 * wrote thousands of entries: the view reopens at its old snapshot with its old values, and the next
 * materialization catches up.
 */
class OnlineViewCrashTest {
  private static final int KEYS = 15_000;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  static OnlineViewDefinition definition() {
    return OnlineViewDefinition.builder("crash", SyntheticFeatures.TABLE_ID).key("entity_id").eventTime("event_time")
        .features("feature_a").build();
  }

  private static List<Map<String, Object>> generation(int g) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long k = 0; k < KEYS; k++) {
      rows.add(Map.of("entity_id", k, "event_time", OffsetDateTime.ofInstant(T0.plusSeconds(g * 100L), ZoneOffset.UTC),
          "feature_a", (double) g));
    }
    return rows;
  }

  @Test
  void killedMaterialization_leavesTheOldSnapshot_andTheNextOneCatchesUp() throws Exception {
    long first;
    long last;
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      first = table.append(generation(1)).snapshotId().orElseThrow();
      assertThat(store.onlineView(definition()).materialize().mode()).isEqualTo(OnlineMaterialization.Mode.FULL);
      table.append(generation(2));
      last = table.append(generation(3)).snapshotId().orElseThrow();
    }
    for (String mode : List.of("incremental", "rebuild")) {
      try (ChildJvm child = ChildJvm.start(OnlineViewCrashChild.class, dir, dir.toString(), mode)) {
        assertThat(child.await("MID", Duration.ofMinutes(3))).as("child output %s", child.lines()).isPresent();
        child.kill();
      }
      try (FeatureStore store = FeatureStore.openLocal(dir); OnlineView view = store.onlineView(definition())) {
        assertThat(view.lag().snapshotId()).hasValue(first);
        assertAll(view, first, 1.0);
      }
    }
    try (FeatureStore store = FeatureStore.openLocal(dir); OnlineView view = store.onlineView(definition())) {
      OnlineMaterialization caughtUp = view.materialize();
      assertThat(caughtUp.mode()).isEqualTo(OnlineMaterialization.Mode.INCREMENTAL);
      assertThat(caughtUp.toSnapshotId()).hasValue(last);
      assertAll(view, last, 3.0);
    }
  }

  private static void assertAll(OnlineView view, long snapshot, double value) {
    List<Long> keys = LongStream.range(0, KEYS).boxed().toList();
    OnlineBatch batch = view.get(keys, List.of("feature_a"));
    assertThat(batch.snapshotId()).isEqualTo(snapshot);
    assertThat(batch.rows()).allSatisfy(r -> {
      assertThat(r.status()).isEqualTo(OnlineRow.Status.FOUND);
      assertThat(r.values()).containsExactly(Map.entry("feature_a", value));
    });
  }
}
