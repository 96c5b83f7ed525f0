package dev.featurestore.core.online;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * After random ingests (new keys, newer and older event times, null features), positional and
 * equality deletes, whole-file deletes, compactions and rollbacks, with materializations in
 * between: the view equals the latest row per key computed through TimeTravelQuery at the view's
 * snapshot, and a view rebuilt from scratch equals the incrementally kept one.
 */
class OnlineViewPropertyTest {
  private static final int KEYS = 40;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void incrementalView_equalsLatestPerKey_atItsSnapshot(long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    Set<Long> usedTimes = new HashSet<>();
    Map<String, Integer> modes = new HashMap<>();
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = TestTables.createEvents(store, false);
      Table iceberg = table.unwrap(Table.class);
      OnlineView view = store.onlineView(definition("incremental"));
      for (int step = 0; step < 30; step++) {
        iceberg.refresh();
        int op = iceberg.currentSnapshot() == null || liveFiles(iceberg).isEmpty() ? 0 : random.nextInt(20);
        if (op < 9) {
          List<Record> records = new ArrayList<>();
          int n = 1 + random.nextInt(12);
          for (int i = 0; i < n; i++) {
            long t;
            do {
              t = random.nextLong(100_000);
            } while (!usedTimes.add(t));
            records.add(TestTables.record(table, "entity_id", (long) random.nextInt(KEYS),
                "event_time", OffsetDateTime.ofInstant(T0.plusSeconds(t), ZoneOffset.UTC),
                "feature_a", (double) t, "feature_b", random.nextInt(4) == 0 ? null : (double) -t));
          }
          TestTables.append(table, records);
        } else if (op < 12) {
          List<DataFile> files = liveFiles(iceberg);
          DataFile file = files.get(random.nextInt(files.size()));
          long[] positions = LongStream.range(0, file.recordCount()).filter(p -> random.nextInt(3) == 0).toArray();
          TestTables.positionDelete(table, file, positions.length == 0 ? new long[] {0} : positions);
        } else if (op < 14) {
          TestTables.equalityDelete(table, "entity_id", (long) random.nextInt(KEYS), (long) random.nextInt(KEYS));
        } else if (op < 15) {
          List<DataFile> files = liveFiles(iceberg);
          iceberg.newDelete().deleteFile(files.get(random.nextInt(files.size()))).commit();
        } else if (op < 16) {
          table.maintenance().compact().execute();
        } else {
          List<Long> ancestors = SnapshotUtil.currentAncestorIds(iceberg);
          if (ancestors.size() > 1) {
            table.snapshots().rollbackTo(ancestors.get(1 + random.nextInt(Math.min(3, ancestors.size() - 1))));
          }
        }
        if (random.nextInt(3) > 0) {
          OnlineMaterialization m = view.materialize();
          modes.merge(m.mode().name(), 1, Integer::sum);
          assertMatches(table, view, m.toSnapshotId().orElseThrow());
        }
      }
      OnlineMaterialization last = view.materialize();
      long snapshot = last.toSnapshotId().orElseThrow();
      assertMatches(table, view, snapshot);
      try (OnlineView rebuilt = store.onlineView(definition("rebuilt"))) {
        assertThat(rebuilt.materialize().mode()).isEqualTo(OnlineMaterialization.Mode.FULL);
        List<Long> keys = LongStream.range(0, KEYS).boxed().toList();
        assertThat(rows(rebuilt.get(keys, rebuilt.features()))).isEqualTo(rows(view.get(keys, view.features())));
      }
      assertThat(modes).containsKey("INCREMENTAL");
    }
  }

  private static OnlineViewDefinition definition(String name) {
    return OnlineViewDefinition.builder(name, SyntheticFeatures.TABLE_ID).key("entity_id").eventTime("event_time")
        .features("feature_a", "feature_b").build();
  }

  private static List<DataFile> liveFiles(Table table) throws Exception {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    }
    return files;
  }

  /** The view's rows compared as (key, status, event time, values), snapshot ids left out. */
  private static List<List<Object>> rows(OnlineBatch batch) {
    List<List<Object>> rows = new ArrayList<>();
    for (OnlineRow r : batch.rows()) {
      rows.add(List.of(r.key(), r.status(), r.eventTime(), r.values()));
    }
    return rows;
  }

  private static void assertMatches(FeatureTable table, OnlineView view, long snapshotId) {
    Map<Long, Row> latest = new HashMap<>();
    try (QueryResult result = table.query().asOfSnapshot(snapshotId).execute()) {
      for (Row row : result) {
        long key = (Long) row.get("entity_id");
        Row seen = latest.get(key);
        if (seen == null || ((OffsetDateTime) row.get("event_time")).isAfter((OffsetDateTime) seen.get("event_time"))) {
          latest.put(key, row);
        }
      }
    }
    List<Long> keys = LongStream.range(0, KEYS).boxed().toList();
    OnlineBatch batch = view.get(keys, List.of("feature_a", "feature_b"));
    assertThat(batch.snapshotId()).isEqualTo(snapshotId);
    for (long key = 0; key < KEYS; key++) {
      Row expected = latest.get(key);
      OnlineRow actual = view.get(key);
      assertThat(actual.snapshotId()).isEqualTo(snapshotId);
      assertThat(batch.rows().get((int) key)).isEqualTo(actual);
      if (expected == null) {
        assertThat(actual.status()).as("key %d at snapshot %d", key, snapshotId).isEqualTo(OnlineRow.Status.MISSING);
        continue;
      }
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("feature_a", expected.get("feature_a"));
      if (expected.get("feature_b") != null) {
        values.put("feature_b", expected.get("feature_b"));
      }
      assertThat(actual.status()).as("key %d at snapshot %d", key, snapshotId).isEqualTo(OnlineRow.Status.FOUND);
      assertThat(actual.values()).as("key %d at snapshot %d", key, snapshotId).isEqualTo(values);
      assertThat(actual.eventTime()).contains(((OffsetDateTime) expected.get("event_time")).toInstant());
    }
  }

}
