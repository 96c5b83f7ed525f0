package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Repeated queries reuse a snapshot's planned files; the cache never serves another snapshot or table. */
class DuckPlanCacheTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private long count(dev.featurestore.TimeTravelQuery version) {
    List<Map<String, Object>> rows = sql.query("SELECT count(*) AS n FROM t").table("t", version).toList();
    return (Long) rows.get(0).get("n");
  }

  @Test
  void repeatedQuery_reusesPlan_andSeesNewSnapshots() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    long first = TestTables.currentSnapshotId(events);
    assertThat(count(events.query())).isEqualTo(1);
    assertThat(count(events.query())).isEqualTo(1);
    Table table = events.unwrap(Table.class);
    assertThat(((DuckEngine) sql).plans().get(table, table.snapshot(first))).hasSize(1);

    TestTables.append(events, List.of(event(events, 2, "2026-01-02T10:00:00Z", 0.7, 2.0)));

    assertThat(count(events.query())).isEqualTo(2);
    assertThat(count(events.query().asOfSnapshot(first))).isEqualTo(1);
  }

  @Test
  void filterAfterUnfilteredQuery_stillPrunesByColumnStats() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    TestTables.append(events, List.of(event(events, 2, "2026-01-01T11:00:00Z", 5.0, 1.0)));
    assertThat(count(events.query())).isEqualTo(2); // plans and caches the snapshot's files

    try (SqlResult result = sql.query("SELECT count(*) AS n FROM t")
        .table("t", events.query().filter(Expressions.greaterThan("feature_a", 1.0))).execute()) {
      assertThat(result.iterator().next().get("n")).isEqualTo(1L);
      TableScanStats stats = result.stats().tables().get(0);
      assertThat(stats.plannedDataFiles()).isEqualTo(1);
      assertThat(stats.prunedByColumnStats()).isEqualTo(1);
    }
  }

  @Test
  void droppedAndRecreatedTable_isPlannedAgain() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    assertThat(count(events.query())).isEqualTo(1);

    store.dropTable(events.id(), true);
    FeatureTable again = TestTables.createEvents(store, false);
    TestTables.append(again, List.of(
        event(again, 1, "2026-01-01T10:00:00Z", 0.5, 1.0), event(again, 2, "2026-01-01T10:00:00Z", 0.5, 1.0)));

    assertThat(count(again.query())).isEqualTo(2);
  }

  @Test
  void cache_keepsAtMostMaxEntries_andSkipsLargePlans() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    TestTables.append(events, List.of(event(events, 2, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    Table table = events.unwrap(Table.class);
    table.refresh();
    Snapshot latest = table.currentSnapshot();
    Snapshot parent = table.snapshot(latest.parentId());
    List<FileScanTask> tasks = ScanPlanner.plan(events.query(), new ScanPlanner.PlanCache(1, 10)).tasks();
    assertThat(tasks).hasSize(2);

    ScanPlanner.PlanCache cache = new ScanPlanner.PlanCache(1, 1);
    cache.put(table, latest, tasks);
    assertThat(cache.get(table, latest)).isNull(); // more files than maxTasks
    cache.put(table, parent, tasks.subList(0, 1));
    assertThat(cache.get(table, parent)).hasSize(1);
    ScanPlanner.PlanCache small = new ScanPlanner.PlanCache(1, 10);
    small.put(table, parent, tasks.subList(0, 1));
    small.put(table, latest, tasks);
    assertThat(small.get(table, parent)).isNull(); // evicted: one entry at most
    assertThat(small.get(table, latest)).hasSize(2);
  }
}
