package dev.featurestore.core.query;

import static dev.featurestore.core.query.TestTables.append;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static dev.featurestore.core.query.TestTables.event;
import static dev.featurestore.core.query.TestTables.tick;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.ScanStats;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class QueryTest extends LocalStoreTest {
  private static List<Map<String, Object>> rows(TimeTravelQuery query) {
    try (QueryResult result = query.execute()) {
      return result.toList();
    }
  }

  private static List<Long> ids(TimeTravelQuery query) {
    return rows(query.select("entity_id")).stream().map(r -> (Long) r.get("entity_id")).sorted().toList();
  }

  /** Rows with entity ids [from, to), one per hour from 2026-01-01, feature_a = id / 100. */
  private static List<Record> events(FeatureTable table, long from, long to) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      String time = OffsetDateTime.parse("2026-01-01T00:00:00Z").plusHours(id).toString();
      rows.add(event(table, id, time, id / 100.0, id % 2 == 0 ? null : 1.0));
    }
    return rows;
  }

  @Test
  void versions_current_snapshotId_asOfTime_tag() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 3));
    long first = currentSnapshotId(table);
    tick();
    Instant between = Instant.now();
    tick();
    append(table, events(table, 3, 5));
    table.snapshots().createTag("first", first);

    assertThat(ids(table.query())).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(ids(table.query().asOfSnapshot(first))).containsExactly(0L, 1L, 2L);
    assertThat(ids(table.query().asOf(between))).containsExactly(0L, 1L, 2L);
    assertThat(ids(table.query().atRef("first"))).containsExactly(0L, 1L, 2L);
    assertThat(ids(table.query().atRef("first").current())).containsExactly(0L, 1L, 2L, 3L, 4L);
    try (QueryResult result = table.query().asOfSnapshot(first).execute()) {
      assertThat(result.snapshotId()).isEqualTo(first);
    }
  }

  @Test
  void versions_unknown_fail() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 3));
    assertThatThrownBy(() -> table.query().asOfSnapshot(42L).execute())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown snapshot id: 42");
    assertThatThrownBy(() -> table.query().atRef("nope").execute())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown ref: nope");
    assertThatThrownBy(() -> table.query().asOf(Instant.parse("2000-01-01T00:00:00Z")).count())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: time is before the first snapshot: 2000-01-01T00:00:00Z");
  }

  @Test
  void emptyTable_returnsNoRows_snapshotIdMinusOne() {
    FeatureTable table = TestTables.createEvents(store, true);
    try (QueryResult result = table.query().filter(Expressions.greaterThan("feature_a", 0.0)).execute()) {
      assertThat(result.toList()).isEmpty();
      assertThat(result.snapshotId()).isEqualTo(-1L);
      assertThat(result.scanStats().snapshotId()).isEqualTo(-1L);
      assertThat(result.scanStats().totalDataFiles()).isZero();
    }
    assertThat(table.query().count()).isZero();
  }

  @Test
  void select_projectsInGivenOrder_andFilterMayUseOtherColumns() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 10));
    try (QueryResult result = table.query().select("feature_a", "entity_id")
        .filter(Expressions.greaterThanOrEqual("event_time", "2026-01-01T05:00:00+00:00")).execute()) {
      assertThat(result.schema().columns()).extracting(Types.NestedField::name).containsExactly("feature_a", "entity_id");
      List<Row> rows = new ArrayList<>();
      result.forEach(rows::add);
      assertThat(rows).hasSize(5);
      Row row = rows.get(0);
      assertThat(row.size()).isEqualTo(2);
      assertThat(row.toMap().keySet()).containsExactly("feature_a", "entity_id");
      assertThat(row.get(1)).isEqualTo(row.get("entity_id"));
      assertThat(row.get(0)).isEqualTo((Long) row.get("entity_id") / 100.0);
      assertThatThrownBy(() -> row.get("event_time"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot get column: unknown column: event_time");
    }
  }

  @Test
  void select_columnMissingInVersion_fails() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 3));
    long first = currentSnapshotId(table);
    table.evolveSchema().addColumn("feature_c", Types.DoubleType.get()).commit();
    assertThat(rows(table.query().select("feature_c"))).hasSize(3);
    assertThatThrownBy(() -> table.query().asOfSnapshot(first).select("feature_c").execute())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot select column: column does not exist in snapshot " + first + ": feature_c");
  }

  @Test
  void refinements_leaveBaseUnchanged_andAreSafeToShareAcrossThreads() throws Exception {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 50));
    long first = currentSnapshotId(table);
    append(table, events(table, 50, 100));
    TimeTravelQuery base = table.query().select("entity_id");
    TimeTravelQuery old = base.asOfSnapshot(first);
    TimeTravelQuery filtered = base.filter(Expressions.lessThan("entity_id", 10L));
    assertThat(base.count()).isEqualTo(100);
    assertThat(old.count()).isEqualTo(50);
    assertThat(filtered.count()).isEqualTo(10);
    assertThat(base.schema().columns()).hasSize(1);

    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Long>> futures = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        long limit = i * 5L;
        Callable<Long> task = () -> (long) ids(base.filter(Expressions.lessThan("entity_id", limit))).size();
        futures.add(pool.submit(task));
      }
      for (int i = 0; i < 16; i++) {
        assertThat(futures.get(i).get()).isEqualTo(i * 5L);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(base.count()).isEqualTo(100);
  }

  @Test
  void scanStats_partitionedByDay_filterPrunesFiles() {
    FeatureTable table = TestTables.createEvents(store, true);
    List<DataFile> files = append(table, events(table, 0, 120)); // 5 days of hourly rows, one file per day
    assertThat(files).hasSize(5);
    TimeTravelQuery query = table.query()
        .filter(Expressions.greaterThanOrEqual("event_time", "2026-01-04T12:00:00+00:00"));
    try (QueryResult result = query.execute()) {
      long rows = result.toList().size();
      ScanStats stats = result.scanStats();
      assertThat(rows).isEqualTo(36); // day 4 from noon (12) + day 5 (24)
      assertThat(stats.totalDataFiles()).isEqualTo(5);
      assertThat(stats.plannedDataFiles()).isEqualTo(2);
      assertThat(stats.prunedDataFiles()).isEqualTo(3);
      assertThat(stats.plannedDeleteFiles()).isZero();
      assertThat(stats.plannedBytes()).isEqualTo(files.get(3).fileSizeInBytes() + files.get(4).fileSizeInBytes());
      assertThat(stats.rowsReturned()).isEqualTo(36);
      assertThat(stats.snapshotId()).isEqualTo(result.snapshotId());
      assertThat(stats.planningTime()).isPositive();
      assertThat(stats.executionTime()).isPositive();
    }
    assertThat(query.count()).isEqualTo(36);
  }

  @Test
  void filter_rowsAreExact_sameAsFullScanFilteredInJava() {
    FeatureTable table = TestTables.createEvents(store, false);
    Random random = new Random(7);
    List<Record> records = new ArrayList<>();
    for (long id = 0; id < 500; id++) {
      records.add(event(table, id, "2026-01-01T00:00:00Z", random.nextDouble(), random.nextBoolean() ? null : random.nextDouble()));
    }
    append(table, records); // one file whose min/max cannot prune anything

    List<Map<String, Object>> all = rows(table.query());
    List<Object> expected = all.stream()
        .filter(r -> (Double) r.get("feature_a") > 0.5 && r.get("feature_b") != null)
        .map(r -> r.get("entity_id")).sorted().toList();
    TimeTravelQuery query = table.query()
        .filter(Expressions.greaterThan("feature_a", 0.5))
        .filter(Expressions.notNull("feature_b"));
    List<Object> actual = rows(query).stream().map(r -> r.get("entity_id")).sorted().toList();

    assertThat(expected).isNotEmpty().hasSizeLessThan(500);
    assertThat(actual).isEqualTo(expected);
    assertThat(query.count()).isEqualTo(expected.size());
  }

  @Test
  void deletes_positionalAndEquality_areExcluded() {
    FeatureTable table = TestTables.createEvents(store, false);
    assertThat(table.formatVersion()).isEqualTo(2);
    List<DataFile> files = append(table, events(table, 0, 10));
    TestTables.positionDelete(table, files.get(0), 0, 1);     // entity ids 0 and 1
    TestTables.equalityDelete(table, "entity_id", 5L, 7L);

    assertThat(ids(table.query())).containsExactly(2L, 3L, 4L, 6L, 8L, 9L);
    assertThat(table.query().count()).isEqualTo(6);
    try (QueryResult result = table.query().filter(Expressions.lessThan("entity_id", 6L)).execute()) {
      assertThat(result.toList()).hasSize(3);
      assertThat(result.scanStats().plannedDeleteFiles()).isEqualTo(2);
    }
  }

  @Test
  void filter_onOldColumnName_readsOldSnapshotExactly() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 10));
    long first = currentSnapshotId(table);
    table.evolveSchema().renameColumn("feature_a", "score").commit();
    List<Map<String, Object>> old = rows(table.query().asOfSnapshot(first)
        .select("entity_id", "feature_a").filter(Expressions.greaterThan("feature_a", 0.07)));
    assertThat(old).extracting(r -> r.get("entity_id")).containsExactlyInAnyOrder(8L, 9L);
    assertThat(rows(table.query().filter(Expressions.greaterThan("score", 0.07)))).hasSize(2);
  }

  @Test
  void result_iteratesOnce_andCloseIsIdempotent() {
    FeatureTable table = TestTables.createEvents(store, false);
    append(table, events(table, 0, 3));
    QueryResult result = table.query().execute();
    Iterator<Row> first = result.iterator();
    assertThat(first.hasNext()).isTrue();
    assertThatThrownBy(result::iterator)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot iterate query result: already iterated (a result is single-use)");
    result.close();
    result.close();
    assertThat(first.hasNext()).isFalse();
  }
}
