package dev.featurestore.duckdb;

import dev.featurestore.core.query.TestTables;
import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingSetTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable events;
  FeatureTable labels;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    events = TestTables.createEvents(store, false);
    labels = store.createTable(TableDefinition.builder(TableId.of("features", "labels"), new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, "label", Types.IntegerType.get()))).build());
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private Record label(long entity, String time, int value) {
    return TestTables.record(labels, "entity_id", entity, "label_time", OffsetDateTime.parse(time), "label", value);
  }

  private TrainingSet trainingSet(Duration ttl) {
    return sql.trainingSet()
        .labels(labels.query(), "entity_id", "label_time")
        .features("ev", events.query(), "entity_id", "event_time", ttl, "feature_a", "event_time")
        .build();
  }

  @Test
  void handChecked_tiesLateLabelsTtlAndMissingEntities() {
    TestTables.append(events, List.of(
        event(events, 1, "2026-01-01T10:00:00Z", 1.0, null),
        event(events, 1, "2026-01-01T12:00:00Z", 2.0, null),
        event(events, 1, "2026-01-03T12:00:00Z", 3.0, null),
        event(events, 2, "2026-01-01T09:00:00Z", 20.0, null)));
    TestTables.append(labels, List.of(
        label(1, "2026-01-01T12:00:00Z", 100),   // tie: the feature at exactly the label time counts
        label(1, "2026-01-01T11:59:59Z", 101),   // just before: the earlier value
        label(1, "2026-01-01T09:00:00Z", 102),   // before any feature of the entity: nulls
        label(1, "2026-01-03T11:00:00Z", 103),   // latest is 2026-01-01T12:00 (47h old)
        label(2, "2026-01-02T08:00:00Z", 104),   // 23h old value
        label(3, "2026-01-02T08:00:00Z", 105))); // unknown entity: nulls

    List<Map<String, Object>> rows = trainingSet(null).toList();
    assertThat(rows).extracting(r -> r.get("label"), r -> r.get("ev__feature_a"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(102, null),
            org.assertj.core.groups.Tuple.tuple(101, 1.0),
            org.assertj.core.groups.Tuple.tuple(100, 2.0),
            org.assertj.core.groups.Tuple.tuple(103, 2.0),
            org.assertj.core.groups.Tuple.tuple(104, 20.0),
            org.assertj.core.groups.Tuple.tuple(105, null));
    assertThat(rows.get(2).get("ev__event_time")).isEqualTo(OffsetDateTime.parse("2026-01-01T12:00:00Z"));

    // TTL of one day: the 47-hour-old value expires, the 23-hour-old one does not
    List<Map<String, Object>> withTtl = trainingSet(Duration.ofDays(1)).toList();
    assertThat(withTtl).extracting(r -> r.get("label"), r -> r.get("ev__feature_a"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(102, null),
            org.assertj.core.groups.Tuple.tuple(101, 1.0),
            org.assertj.core.groups.Tuple.tuple(100, 2.0),
            org.assertj.core.groups.Tuple.tuple(103, null),
            org.assertj.core.groups.Tuple.tuple(104, 20.0),
            org.assertj.core.groups.Tuple.tuple(105, null));
  }

  @Test
  void asOfTableVersion_ignoresLaterFeatureWrites_andRecordsLineage() {
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, null)));
    long before = TestTables.currentSnapshotId(events);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T11:00:00Z", 9.0, null)));
    TestTables.append(labels, List.of(label(1, "2026-01-01T12:00:00Z", 1)));
    TrainingSet set = sql.trainingSet()
        .labels(labels.query(), "entity_id", "label_time")
        .features("ev", events.query().asOfSnapshot(before), "entity_id", "event_time", null, "feature_a")
        .build();
    assertThat(set.toList()).extracting(r -> r.get("ev__feature_a")).containsExactly(1.0);
    SqlExport export = set.exportParquet(dir.resolve("exports/train.parquet"));
    assertThat(export.rows()).isEqualTo(1);
    assertThat(export.lineage()).contains("\"snapshot_id\":" + before).contains("\"name\":\"labels\"");
  }

  @Test
  void largerCase_matchesJavaReference() {
    Random random = new Random(11);
    OffsetDateTime t0 = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    Map<Long, TreeMap<OffsetDateTime, Double>> byEntity = new HashMap<>();
    List<Record> featureRows = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      long entity = random.nextInt(200);
      OffsetDateTime time = t0.plusSeconds(random.nextInt(86_400 * 10));
      if (byEntity.computeIfAbsent(entity, e -> new TreeMap<>()).putIfAbsent(time, (double) i) != null) {
        continue; // keep (entity, time) unique so the reference is unambiguous
      }
      featureRows.add(event(events, entity, time.toString(), (double) i, null));
    }
    TestTables.append(events, featureRows);
    List<Record> labelRows = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      labelRows.add(label(random.nextInt(220), t0.plusSeconds(random.nextInt(86_400 * 11)).toString(), i));
    }
    TestTables.append(labels, labelRows);
    Duration ttl = Duration.ofHours(12);

    List<Map<String, Object>> rows = trainingSet(ttl).toList();
    assertThat(rows).hasSize(2_000);
    int matched = 0;
    for (Map<String, Object> row : rows) {
      TreeMap<OffsetDateTime, Double> series = byEntity.get((Long) row.get("entity_id"));
      OffsetDateTime at = (OffsetDateTime) row.get("label_time");
      Map.Entry<OffsetDateTime, Double> latest = series == null ? null : series.floorEntry(at);
      Double expected = latest == null || latest.getKey().isBefore(at.minus(ttl)) ? null : latest.getValue();
      assertThat(row.get("ev__feature_a")).as("label %s", row).isEqualTo(expected);
      if (expected != null) {
        matched++;
      }
    }
    assertThat(matched).isBetween(200, 1_900); // the case exercises both hits and misses
  }
}
