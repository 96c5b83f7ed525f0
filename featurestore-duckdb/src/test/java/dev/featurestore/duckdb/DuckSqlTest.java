package dev.featurestore.duckdb;

import dev.featurestore.core.query.TestTables;
import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.QueryResult;
import dev.featurestore.SnapshotNotFoundException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DuckSqlTest {
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

  static List<Map<String, Object>> oracle(dev.featurestore.TimeTravelQuery query) {
    try (QueryResult result = query.execute()) {
      return result.toList();
    }
  }

  @Test
  void groupBy_overCurrentSnapshot_matchesIcebergReader() {
    FeatureTable events = TestTables.createEvents(store, false);
    events.ingest().synthetic(2_000, 7).commit();
    List<Map<String, Object>> rows = sql.query(
            "SELECT entity_id, count(*) AS n, sum(feature_a) AS s FROM ev GROUP BY entity_id ORDER BY entity_id")
        .table("ev", events)
        .toList();
    Map<Long, Long> expected = new java.util.TreeMap<>();
    for (Map<String, Object> row : oracle(events.query())) {
      expected.merge((Long) row.get("entity_id"), 1L, Long::sum);
    }
    assertThat(rows).hasSize(expected.size());
    for (Map<String, Object> row : rows) {
      assertThat(row.get("n")).isEqualTo(expected.get((Long) row.get("entity_id")));
    }
  }

  @Test
  void select_star_returnsIcebergTypes() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, null)));
    List<Map<String, Object>> rows = sql.query("SELECT * FROM ev").table("ev", events).toList();
    assertThat(rows).isEqualTo(oracle(events.query()));
    assertThat(rows.get(0).keySet()).containsExactly("entity_id", "event_time", "feature_a", "feature_b");
    assertThat(rows.get(0).get("event_time")).isEqualTo(OffsetDateTime.parse("2026-01-01T10:00:00Z"));
  }

  @Test
  void timeTravel_snapshotTimeTagAndBranch() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 1.0)));
    long first = TestTables.currentSnapshotId(events);
    Instant afterFirst = Instant.now();
    TestTables.tick();
    TestTables.append(events, List.of(event(events, 2, "2026-01-01T11:00:00Z", 2.0, 2.0)));
    long second = TestTables.currentSnapshotId(events);
    events.snapshots().createTag("v1", first);
    events.snapshots().createBranch("dev", second);

    String count = "SELECT count(*) AS n FROM t";
    assertThat(sql.query(count).table("t", events.query()).toList()).containsExactly(Map.of("n", 2L));
    assertThat(sql.query(count).table("t", events.query().asOfSnapshot(first)).toList())
        .containsExactly(Map.of("n", 1L));
    assertThat(sql.query(count).table("t", events.query().asOf(afterFirst)).toList())
        .containsExactly(Map.of("n", 1L));
    assertThat(sql.query(count).table("t", events.query().atRef("v1")).toList())
        .containsExactly(Map.of("n", 1L));
    assertThat(sql.query(count).table("t", events.query().atRef("dev")).toList())
        .containsExactly(Map.of("n", 2L));
    // two versions in one query
    List<Map<String, Object>> diff = sql.query(
            "SELECT entity_id FROM after EXCEPT SELECT entity_id FROM before")
        .table("before", events.query().asOfSnapshot(first))
        .table("after", events.query().asOfSnapshot(second))
        .toList();
    assertThat(diff).containsExactly(Map.of("entity_id", 2L));
  }

  @Test
  void unknownSnapshot_fails() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 1.0)));
    assertThatThrownBy(() -> sql.query("SELECT * FROM t").table("t", events.query().asOfSnapshot(42)).toList())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown snapshot id: 42");
    assertThatThrownBy(() -> sql.query("SELECT * FROM t").table("t", events.query().atRef("nope")).toList())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown ref: nope");
  }

  @Test
  void emptyTable_hasColumnsAndNoRows() {
    FeatureTable events = TestTables.createEvents(store, false);
    try (SqlResult result = sql.query("SELECT * FROM t").table("t", events).execute()) {
      assertThat(result.columns()).containsExactly("entity_id", "event_time", "feature_a", "feature_b");
      assertThat(result.toList()).isEmpty();
      assertThat(result.stats().tables().get(0).snapshotId()).isEqualTo(-1);
    }
  }

  @Test
  void schemaEvolution_readsOldFilesByFieldId() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 1.5)));
    long before = TestTables.currentSnapshotId(events);
    events.evolveSchema().renameColumn("feature_a", "clicks").dropColumn("feature_b")
        .addColumn("feature_c", Types.IntegerType.get()).commit();
    TestTables.append(events, List.of(TestTables.record(events, "entity_id", 2L,
        "event_time", OffsetDateTime.parse("2026-01-01T11:00:00Z"), "clicks", 2.0, "feature_c", 7)));
    events.evolveSchema().widenColumn("feature_c", Types.LongType.get()).addColumn("feature_b", Types.DoubleType.get())
        .commit();

    List<Map<String, Object>> now = sql.query("SELECT * FROM t ORDER BY entity_id").table("t", events).toList();
    List<Map<String, Object>> expected = new ArrayList<>(oracle(events.query()));
    expected.sort(java.util.Comparator.comparing(r -> (Long) r.get("entity_id")));
    assertThat(now).isEqualTo(expected);
    assertThat(now.get(0)).containsEntry("clicks", 1.0).containsEntry("feature_c", null).containsEntry("feature_b", null);
    assertThat(now.get(1)).containsEntry("clicks", 2.0).containsEntry("feature_c", 7L);
    List<Map<String, Object>> old = sql.query("SELECT * FROM t").table("t", events.query().asOfSnapshot(before))
        .toList();
    assertThat(old).isEqualTo(oracle(events.query().asOfSnapshot(before)));
    assertThat(old.get(0)).containsEntry("feature_a", 1.0).containsEntry("feature_b", 1.5);
  }

  @Test
  void deletes_positionalAndEquality_areApplied() {
    FeatureTable events = TestTables.createEvents(store, false);
    List<org.apache.iceberg.data.Record> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(event(events, i, "2026-01-01T10:00:00Z", (double) i, null));
    }
    DataFile file = TestTables.append(events, batch).get(0);
    TestTables.positionDelete(events, file, 0, 3);
    TestTables.equalityDelete(events, "entity_id", 5L, 6L);
    TestTables.append(events, List.of(event(events, 5, "2026-01-02T10:00:00Z", 50.0, null)));
    try (SqlResult result = sql.query("SELECT entity_id, feature_a FROM t ORDER BY entity_id").table("t", events).execute()) {
      List<Map<String, Object>> rows = result.toList();
      assertThat(rows).extracting(r -> r.get("entity_id")).containsExactly(1L, 2L, 4L, 5L, 7L, 8L, 9L);
      assertThat(rows.get(3)).containsEntry("feature_a", 50.0);
      TableScanStats stats = result.stats().tables().get(0);
      assertThat(stats.plannedDataFiles()).isEqualTo(2);
      assertThat(stats.plannedDeleteFiles()).isEqualTo(2);
    }
  }

  @Test
  void filter_prunesFilesByPartitionAndStats_andFiltersRowsExactly() {
    FeatureTable events = TestTables.createEvents(store, true);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, null),
        event(events, 2, "2026-01-02T10:00:00Z", 2.0, null), event(events, 3, "2026-01-03T10:00:00Z", 3.0, null)));
    TestTables.append(events, List.of(event(events, 10, "2026-01-03T11:00:00Z", 30.0, null)));
    dev.featurestore.TimeTravelQuery version = events.query()
        .filter(Expressions.greaterThanOrEqual("event_time", "2026-01-03T00:00:00+00:00"))
        .filter(Expressions.lessThan("entity_id", 5L));
    try (SqlResult result = sql.query("SELECT entity_id FROM t").table("t", version).execute()) {
      assertThat(result.toList()).containsExactly(Map.of("entity_id", 3L));
      TableScanStats stats = result.stats().tables().get(0);
      assertThat(stats.totalDataFiles()).isEqualTo(4);
      assertThat(stats.prunedByPartition()).isEqualTo(2);
      assertThat(stats.prunedByColumnStats()).isEqualTo(1);
      assertThat(stats.plannedDataFiles()).isEqualTo(1);
      assertThat(stats.plannedBytes()).isPositive();
      assertThat(stats.planningTime()).isPositive();
      // the same vocabulary as the core query's ScanStats, with the same counts
      assertThat(stats.prunedDataFiles()).isEqualTo(3);
      dev.featurestore.ScanStats sqlScan = result.stats().scanStats("t");
      try (dev.featurestore.QueryResult core = version.execute()) {
        core.toList();
        dev.featurestore.ScanStats coreScan = core.scanStats();
        assertThat(sqlScan.snapshotId()).isEqualTo(coreScan.snapshotId());
        assertThat(sqlScan.totalDataFiles()).isEqualTo(coreScan.totalDataFiles());
        assertThat(sqlScan.plannedDataFiles()).isEqualTo(coreScan.plannedDataFiles());
        assertThat(sqlScan.prunedDataFiles()).isEqualTo(coreScan.prunedDataFiles());
        assertThat(sqlScan.plannedDeleteFiles()).isEqualTo(coreScan.plannedDeleteFiles());
        assertThat(sqlScan.plannedBytes()).isEqualTo(coreScan.plannedBytes());
        assertThat(sqlScan.rowsReturned()).isEqualTo(coreScan.rowsReturned()).isEqualTo(1);
      }
      assertThatThrownBy(() -> result.stats().scanStats("nope"))
          .isExactlyInstanceOf(dev.featurestore.NotFoundException.class)
          .hasMessage("Cannot find scan stats: no relation of that name in the query: nope");
    }
  }

  @Test
  void select_projectsColumns_andUnknownColumnFails() {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    assertThat(sql.query("SELECT * FROM t").table("t", events.query().select("feature_b", "entity_id")).toList())
        .containsExactly(Map.of("feature_b", 2.0, "entity_id", 1L));
    assertThatThrownBy(() -> sql.query("SELECT * FROM t").table("t", events.query().select("nope")).toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessageStartingWith("Cannot select column of table features.feature_events: column does not exist in snapshot ");
  }

  @Test
  void exportParquet_writesRowsWithLineage() throws Exception {
    FeatureTable events = TestTables.createEvents(store, false);
    events.ingest().synthetic(500, 3).commit();
    Path out = dir.resolve("out/slice.parquet");
    SqlExport export = sql.query("SELECT entity_id, feature_a FROM t WHERE feature_a > 0").table("t", events)
        .exportParquet(out);
    long expected = sql.query("SELECT count(*) AS n FROM t WHERE feature_a > 0").table("t", events).toList()
        .get(0).get("n") instanceof Long n ? n : -1;
    assertThat(export.rows()).isEqualTo(expected);
    assertThat(out).exists();
    assertThat(export.lineage()).contains("\"table\":\"features.feature_events\"").contains("\"snapshot_id\":");
    assertThatThrownBy(() -> sql.query("SELECT 1 AS x").exportParquet(out))
        .isInstanceOf(dev.featurestore.AlreadyExistsException.class);
  }

  @Test
  void resultSet_streamsDuckDbTypes() throws Exception {
    FeatureTable events = TestTables.createEvents(store, false);
    events.ingest().synthetic(300, 5).commit();
    try (SqlResult result = sql.query("SELECT entity_id FROM t").table("t", events).execute()) {
      java.sql.ResultSet rs = result.resultSet();
      int n = 0;
      while (rs.next()) {
        assertThat(rs.getLong(1)).isNotNegative();
        n++;
      }
      assertThat(n).isEqualTo(300);
    }
  }
}
