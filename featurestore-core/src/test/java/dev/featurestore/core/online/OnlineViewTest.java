package dev.featurestore.core.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitMetrics;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MetricsListener;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineLag;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineMaterialization.Mode;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.HandClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defining, materializing and reading an online view; freshness, TTL, schema evolution, rollback. */
class OnlineViewTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;
  private final HandClock clock = HandClock.at(T0.plus(Duration.ofDays(1)));
  private final List<OnlineMaterialization> reported = new CopyOnWriteArrayList<>();
  private FeatureStore store;
  private FeatureTable table;

  @BeforeEach
  void setUp() {
    store = FeatureStore.builder().root(dir).clock(clock).metricsListener(new MetricsListener() {
      @Override
      public void onOnlineMaterialization(OnlineMaterialization m) {
        reported.add(m);
      }

      @Override
      public void onCommit(CommitMetrics commit) {}
    }).build();
    table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private static Map<String, Object> row(long entity, long minute, double a) {
    return Map.of("entity_id", entity, "event_time", OffsetDateTime.ofInstant(T0.plusSeconds(60 * minute), ZoneOffset.UTC),
        "feature_a", a, "feature_b", a * 2);
  }

  private OnlineView view(Duration ttl) {
    OnlineViewDefinition.Builder def = OnlineViewDefinition.builder("users", SyntheticFeatures.TABLE_ID)
        .key("entity_id").eventTime("event_time").features("feature_a", "feature_b");
    if (ttl != null) {
      def.ttl(ttl);
    }
    return store.onlineView(def.build());
  }

  @Test
  void materialize_keepsTheLatestRowPerKey_byEventTime() {
    table.append(List.of(row(1, 10, 1.0), row(1, 5, 9.0), row(2, 1, 2.0)));
    OnlineView view = view(null);
    assertThat(view.get(1L).status()).isEqualTo(OnlineRow.Status.MISSING);
    assertThat(view.get(1L).snapshotId()).isEqualTo(-1);

    OnlineMaterialization first = view.materialize();
    assertThat(first.mode()).isEqualTo(Mode.FULL);
    assertThat(first.reason()).isEqualTo("never materialized");
    assertThat(first.rowsRead()).isEqualTo(3);

    OnlineRow one = view.get(1L);
    assertThat(one.status()).isEqualTo(OnlineRow.Status.FOUND);
    assertThat(one.values()).containsExactly(Map.entry("feature_a", 1.0), Map.entry("feature_b", 2.0));
    assertThat(one.eventTime()).contains(T0.plusSeconds(600));
    assertThat(one.snapshotId()).isEqualTo(table.snapshots().current().orElseThrow().snapshotId());
    assertThat(view.get(3L).status()).isEqualTo(OnlineRow.Status.MISSING);
    assertThat(view.get(2).values()).containsEntry("feature_a", 2.0); // an int key converts
    assertThat(view.get("2").values()).containsEntry("feature_a", 2.0);
    assertThat(view.get(new java.math.BigDecimal("2")).values()).as("converts as ingest and lookups do")
        .containsEntry("feature_a", 2.0);

    table.append(List.of(row(2, 20, 3.0), row(1, 8, 7.0), row(4, 0, 4.0)));
    OnlineMaterialization second = view.materialize();
    assertThat(second.mode()).isEqualTo(Mode.INCREMENTAL);
    assertThat(second.rowsRead()).isEqualTo(3);
    assertThat(view.get(1L).values()).containsEntry("feature_a", 1.0); // older event time loses
    assertThat(view.get(2L).values()).containsEntry("feature_a", 3.0);
    OnlineBatch batch = view.get(List.of(4L, 5L, 2L), List.of("feature_b"));
    assertThat(batch.rows()).extracting(OnlineRow::status)
        .containsExactly(OnlineRow.Status.FOUND, OnlineRow.Status.MISSING, OnlineRow.Status.FOUND);
    assertThat(batch.rows().get(0).values()).containsExactly(Map.entry("feature_b", 8.0));
    assertThat(view.materialize().mode()).isEqualTo(Mode.UP_TO_DATE);
    assertThat(reported).extracting(OnlineMaterialization::mode).containsExactly(Mode.FULL, Mode.INCREMENTAL, Mode.UP_TO_DATE);
    assertThat(view.metrics().reads()).isEqualTo(12);
  }

  @Test
  void ttl_tellsExpiredFromMissing() {
    table.append(List.of(row(1, 0, 1.0), row(2, 600, 2.0)));
    OnlineView view = view(Duration.ofHours(20));
    view.materialize();
    // the clock is at T0 + 24 h: entity 1 (T0) is 24 h old, entity 2 (T0 + 10 h) 14 h
    assertThat(view.get(1L).status()).isEqualTo(OnlineRow.Status.EXPIRED);
    assertThat(view.get(1L).values()).isEmpty();
    assertThat(view.get(1L).eventTime()).contains(T0);
    assertThat(view.get(2L).status()).isEqualTo(OnlineRow.Status.FOUND);
    clock.advance(Duration.ofHours(7));
    assertThat(view.get(List.of(1L, 2L, 3L), List.of("feature_a")).rows()).extracting(OnlineRow::status)
        .containsExactly(OnlineRow.Status.EXPIRED, OnlineRow.Status.EXPIRED, OnlineRow.Status.MISSING);
    assertThat(view.metrics().expired()).isEqualTo(5);
  }

  @Test
  void lag_showsTheSnapshotAndHowFarBehind() {
    table.append(List.of(row(1, 0, 1.0)));
    OnlineView view = view(null);
    OnlineLag never = view.lag();
    assertThat(never.snapshotId()).isEmpty();
    assertThat(never.snapshotsBehind()).isEqualTo(1);
    view.materialize();
    long first = table.snapshots().current().orElseThrow().snapshotId();
    assertThat(view.lag().snapshotId()).hasValue(first);
    assertThat(view.lag().upToDate()).isTrue();
    assertThat(view.lag().lag()).isEqualTo(Duration.ZERO);
    table.append(List.of(row(1, 1, 2.0)));
    table.append(List.of(row(1, 2, 3.0)));
    OnlineLag behind = view.lag();
    assertThat(behind.snapshotsBehind()).isEqualTo(2);
    assertThat(behind.snapshotId()).hasValue(first);
    assertThat(view.metrics().lag().snapshotsBehind()).isEqualTo(2);
    view.materialize();
    assertThat(view.lag().upToDate()).isTrue();
  }

  @Test
  void renamedFeature_keepsItsValues_underItsNewName() {
    table.append(List.of(row(1, 0, 1.0)));
    OnlineView view = view(null);
    view.materialize();
    table.evolveSchema().renameColumn("feature_a", "clicks").commit();
    assertThat(view.materialize().mode()).isEqualTo(Mode.UP_TO_DATE);
    assertThat(view.features()).containsExactly("clicks", "feature_b");
    assertThat(view.get(1L).values()).containsEntry("clicks", 1.0);
    table.append(List.of(Map.of("entity_id", 2L, "event_time", OffsetDateTime.ofInstant(T0, ZoneOffset.UTC), "clicks", 5.0)));
    assertThat(view.materialize().mode()).isEqualTo(Mode.INCREMENTAL);
    assertThat(view.get(2L).values()).containsExactly(Map.entry("clicks", 5.0));
    assertThat(view.get(List.of(1L), List.of("clicks")).rows().get(0).values()).containsExactly(Map.entry("clicks", 1.0));
    // reopening with the definition's old names follows the stored field ids
    view.close();
    OnlineView reopened = view(null);
    assertThat(reopened.get(1L).values()).containsEntry("clicks", 1.0);
  }

  @Test
  void widenedAndDroppedFeatures() {
    store.createTable(TableDefinition.builder("features.ints", new org.apache.iceberg.Schema(
        Types.NestedField.required(1, "id", Types.StringType.get()),
        Types.NestedField.required(2, "ts", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "n", Types.IntegerType.get()),
        Types.NestedField.optional(4, "gone", Types.StringType.get()))).build())
        .append(List.of(Map.of("id", "a", "ts", "2026-01-01T00:00:00", "n", 7, "gone", "x")));
    OnlineView view = store.onlineView(OnlineViewDefinition.builder("ints", dev.featurestore.TableId.parse("features.ints"))
        .key("id").eventTime("ts").build());
    view.materialize();
    assertThat(view.get("a").values()).containsExactly(Map.entry("n", 7), Map.entry("gone", "x"));
    store.table("features.ints").evolveSchema().widenColumn("n", Types.LongType.get()).dropColumn("gone").commit();
    store.table("features.ints").append(List.of(Map.of("id", "b", "ts", "2026-01-01T00:00:00", "n", 8L)));
    OnlineMaterialization m = view.materialize();
    assertThat(m.mode()).isEqualTo(Mode.FULL);
    assertThat(m.reason()).isEqualTo("a feature was dropped from the table");
    assertThat(view.features()).containsExactly("n");
    assertThat(view.get("a").values()).containsExactly(Map.entry("n", 7L));
    assertThat(view.get("b").values()).containsExactly(Map.entry("n", 8L));
    assertThatThrownBy(() -> view.get(List.of("a"), List.of("gone")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot read online view ints: no such feature in the view (it has [n]): gone");
  }

  @Test
  void rollback_rebuildsTheView() {
    table.append(List.of(row(1, 0, 1.0)));
    long first = table.snapshots().current().orElseThrow().snapshotId();
    table.append(List.of(row(1, 5, 5.0), row(2, 5, 5.0)));
    OnlineView view = view(null);
    view.materialize();
    assertThat(view.get(1L).values()).containsEntry("feature_a", 5.0);
    table.snapshots().rollbackTo(first);
    OnlineMaterialization m = view.materialize();
    assertThat(m.mode()).isEqualTo(Mode.FULL);
    assertThat(m.reason()).contains("is not an ancestor of the current snapshot");
    assertThat(view.get(1L).values()).containsEntry("feature_a", 1.0);
    assertThat(view.get(2L).status()).isEqualTo(OnlineRow.Status.MISSING);
    assertThat(view.get(1L).snapshotId()).isEqualTo(first);
  }

  @Test
  void badDefinitions_fail() {
    assertThatThrownBy(() -> store.onlineView(OnlineViewDefinition.builder("v", SyntheticFeatures.TABLE_ID)
        .key("nope").eventTime("event_time").build()))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot open online view v: no top-level key column: nope");
    assertThatThrownBy(() -> store.onlineView(OnlineViewDefinition.builder("v", SyntheticFeatures.TABLE_ID)
        .key("feature_a").eventTime("event_time").build()))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot open online view v: key column must be int, long, string or uuid: feature_a double");
    assertThatThrownBy(() -> store.onlineView(OnlineViewDefinition.builder("v", SyntheticFeatures.TABLE_ID)
        .key("entity_id").eventTime("feature_a").build()))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot open online view v: event-time column must be timestamp or timestamptz: feature_a double");
    assertThatThrownBy(() -> OnlineViewDefinition.builder("bad name", SyntheticFeatures.TABLE_ID))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot define online view: the name must be 1-100 letters, digits, '_', '.' or '-': bad name");
    OnlineView view = view(null);
    assertThat(view(null)).isSameAs(view);
    assertThatThrownBy(() -> view(Duration.ofHours(1)))
        .isInstanceOf(InvalidStateException.class)
        .hasMessageStartingWith("Cannot open online view users: it is open with another definition: ");
    assertThatThrownBy(() -> view.get("x"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot read online view users: key does not convert to column entity_id (long): x");
    assertThatThrownBy(() -> view.get(java.time.LocalDate.EPOCH))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot read online view users: key does not convert to column entity_id (long): 1970-01-01");
    view.close();
    assertThatThrownBy(view::materialize)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot materialize online view users: the online view is closed");
    assertThat(view(null)).isNotSameAs(view);
  }

  @Test
  void rowLevelDeletes_followIncrementally_andTheNextLatestRowComesBack() {
    List<org.apache.iceberg.DataFile> older = dev.featurestore.core.query.TestTables.append(table, List.of(
        dev.featurestore.core.query.TestTables.record(table, "entity_id", 1L, "event_time", time(1), "feature_a", 1.0),
        dev.featurestore.core.query.TestTables.record(table, "entity_id", 2L, "event_time", time(1), "feature_a", 2.0)));
    List<org.apache.iceberg.DataFile> newer = dev.featurestore.core.query.TestTables.append(table, List.of(
        dev.featurestore.core.query.TestTables.record(table, "entity_id", 1L, "event_time", time(5), "feature_a", 10.0),
        dev.featurestore.core.query.TestTables.record(table, "entity_id", 3L, "event_time", time(5), "feature_a", 30.0)));
    OnlineView view = view(null);
    view.materialize();
    assertThat(view.get(1L).values()).containsEntry("feature_a", 10.0);

    dev.featurestore.core.query.TestTables.positionDelete(table, newer.get(0), 0); // key 1's latest row
    OnlineMaterialization afterPositionDelete = view.materialize();
    assertThat(afterPositionDelete.mode()).isEqualTo(Mode.INCREMENTAL);
    assertThat(view.get(1L).values()).containsEntry("feature_a", 1.0);
    assertThat(view.get(3L).values()).containsEntry("feature_a", 30.0);

    dev.featurestore.core.query.TestTables.equalityDelete(table, "entity_id", 2L);
    assertThat(view.materialize().mode()).isEqualTo(Mode.INCREMENTAL);
    assertThat(view.get(2L).status()).isEqualTo(OnlineRow.Status.MISSING);

    table.unwrap(org.apache.iceberg.Table.class).newDelete().deleteFile(older.get(0)).commit();
    assertThat(view.materialize().mode()).isEqualTo(Mode.INCREMENTAL);
    assertThat(view.get(1L).status()).isEqualTo(OnlineRow.Status.MISSING);
    assertThat(view.get(3L).values()).containsEntry("feature_a", 30.0);
  }

  private static OffsetDateTime time(long minute) {
    return OffsetDateTime.ofInstant(T0.plusSeconds(60 * minute), ZoneOffset.UTC);
  }
}
