package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQL adapter reads the API's TimeTravelQuery: the same version, columns and filter core queries read. */
class DuckTimeTravelQueryTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable events;
  long first;
  long second;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).build();
    events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    first = TestTables.currentSnapshotId(events);
    events.snapshots().createTag("v1", first);
    TestTables.append(events, List.of(event(events, 2, "2026-01-01T11:00:00Z", 3.0, 4.0)));
    second = TestTables.currentSnapshotId(events);
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private List<Map<String, Object>> rows(TimeTravelQuery query) {
    return sql.query("SELECT * FROM t ORDER BY entity_id").table("t", query).toList();
  }

  @Test
  void everyVersionKind_readsWhatTheCoreQueryReads() {
    for (TimeTravelQuery query : List.of(events.query(), events.query().asOfSnapshot(first),
        events.query().atRef("v1"), events.query().atRef("main"), events.query().asOf(Instant.MAX),
        events.query().select("feature_a", "entity_id"),
        events.query().filter(Expressions.greaterThan("feature_a", 2.0)).select("entity_id"))) {
      List<Map<String, Object>> core = query.execute().toList();
      assertThat(rows(query)).as(query.toString()).hasSameSizeAs(core);
      assertThat(rows(query).stream().map(Map::keySet).distinct().toList())
          .as(query.toString()).isEqualTo(core.stream().map(Map::keySet).distinct().toList());
    }
    assertThat(rows(events.query().asOfSnapshot(first).select("entity_id"))).containsExactly(Map.of("entity_id", 1L));
    assertThat(rows(events.query().filter(Expressions.greaterThan("feature_a", 2.0)).select("entity_id")))
        .containsExactly(Map.of("entity_id", 2L));
  }

  @Test
  void asOfExtremeTimes_areTyped() {
    assertThat(rows(events.query().asOf(Instant.MAX).select("entity_id"))).hasSize(2);
    assertThatThrownBy(() -> rows(events.query().asOf(Instant.MIN)))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: time is before the first snapshot: "
            + "-1000000000-01-01T00:00:00Z");
  }

  @Test
  void unknownVersionsAndColumns_failWithTheCoreMessages() {
    assertThatThrownBy(() -> rows(events.query().asOfSnapshot(42)))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown snapshot id: 42");
    assertThatThrownBy(() -> rows(events.query().atRef("nope")))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown ref: nope");
    assertThatThrownBy(() -> rows(events.query().select("nope")))
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot select column of table features.feature_events: column does not exist in snapshot "
            + second + ": nope");
  }

  @Test
  @SuppressWarnings("deprecation")
  void deprecatedTableVersion_delegatesToTheQuery() {
    TableVersion version = TableVersion.of(events).asOfSnapshot(first).select("entity_id");
    assertThat(version.toQuery().version()).isEqualTo(dev.featurestore.ReadVersion.snapshot(first));
    assertThat(sql.query("SELECT * FROM t").table("t", version).toList()).containsExactly(Map.of("entity_id", 1L));
  }
}
