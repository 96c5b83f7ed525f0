package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TrainingSetDefinition;
import dev.featurestore.duckdb.DuckQueries;
import dev.featurestore.duckdb.SqlEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@link TrainingSetDefinition}, run by Spark and by the embedded DuckDB engine, gives the same
 * rows, for random labels and features: features later than their label, entities without
 * features, values older than the TTL, labels and features at exactly the same time, null values,
 * null label keys and times, a feature table pinned to an older snapshot and one filtered.
 */
class SparkTrainingSetPropertyTest {
  private static final TableId LABELS = TableId.of("ml", "labels");
  private static final TableId EVENTS = TableId.of("ml", "events");
  private static final TableId PROFILES = TableId.of("ml", "profiles");
  private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");

  @TempDir Path dir;

  private static Instant minute(Random random, int minutes) {
    return T0.plusSeconds(60L * random.nextInt(minutes));
  }

  /**
   * Feature rows with (entity, time) distinct from every row of the table, {@code keys}, earlier seeds' included:
   * which of two rows at one time an as-of join takes is not defined.
   */
  private static List<Map<String, Object>> features(Random random, Set<String> keys, int count, int entities,
      String valueColumn, boolean doubles) {
    List<Map<String, Object>> rows = new ArrayList<>();
    while (rows.size() < count) {
      long entity = random.nextInt(entities);
      Instant time = minute(random, 48 * 60);
      if (!keys.add(entity + "@" + time)) {
        continue;
      }
      Map<String, Object> row = new HashMap<>();
      row.put("entity_id", entity);
      row.put("event_time", time);
      Object value = doubles ? (Object) (Math.round(random.nextDouble() * 1000) / 10.0) : (Object) random.nextInt(100);
      row.put(valueColumn, random.nextInt(8) == 0 ? null : value);
      row.put("tag", random.nextInt(6) == 0 ? null : "t" + random.nextInt(3));
      rows.add(row);
    }
    return rows;
  }

  private static Schema featureSchema(String valueColumn, org.apache.iceberg.types.Type type) {
    return new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "event_time", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, valueColumn, type),
        Types.NestedField.optional(4, "tag", Types.StringType.get()));
  }

  @Test
  void randomLabelsAndFeatures_sparkAndDuckDbGiveTheSameTrainingSet() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        SqlEngine duck = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      FeatureTable labels = store.createTable(TableDefinition.builder(LABELS, new Schema(
          Types.NestedField.optional(1, "entity_id", Types.LongType.get()),
          Types.NestedField.optional(2, "label_time", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "label", Types.IntegerType.get()))).build());
      FeatureTable events = store.createTable(TableDefinition.builder(EVENTS,
          featureSchema("score", Types.DoubleType.get())).build());
      FeatureTable profiles = store.createTable(TableDefinition.builder(PROFILES,
          featureSchema("visits", Types.IntegerType.get())).build());
      SparkFeatureStore spark = SharedSpark.attach(store);
      Set<String> eventKeys = new HashSet<>();
      Set<String> profileKeys = new HashSet<>();
      for (long seed = 1; seed <= 3; seed++) {
        Random random = new Random(seed);
        List<Map<String, Object>> labelRows = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          Map<String, Object> row = new HashMap<>();
          row.put("entity_id", random.nextInt(25) == 0 ? null : (long) random.nextInt(14)); // 12, 13: no features
          row.put("label_time", random.nextInt(25) == 0 ? null : minute(random, 50 * 60));
          row.put("label", i);
          labelRows.add(row);
        }
        labels.append(labelRows);
        events.append(features(random, eventKeys, 90, 12, "score", true));
        profiles.append(features(random, profileKeys, 40, 12, "visits", false));
        long pinnedProfiles = profiles.snapshots().current().orElseThrow().snapshotId();
        profiles.append(features(random, profileKeys, 40, 12, "visits", false)); // newer than the pinned snapshot: not used

        TrainingSetDefinition definition = TrainingSetDefinition.builder()
            .labels(labels.query(), "entity_id", "label_time")
            .features("ev", events.query().filter(Expressions.notEqual("tag", "t2")), "entity_id", "event_time",
                Duration.ofHours(6).plusSeconds(seed), "score", "tag", "event_time")
            .features("pr", profiles.query().asOfSnapshot(pinnedProfiles), "entity_id", "event_time", null, "visits")
            .build();

        List<Map<String, Object>> expected = duck.trainingSet(definition).toList();
        SparkTrainingSet set = spark.trainingSet(definition);
        Dataset<Row> rows = set.dataset();
        List<String> columns = RowText.columns(rows);
        assertThat(columns).containsExactly("entity_id", "label_time", "label", "ev__score", "ev__tag", "ev__event_time",
            "pr__visits");
        List<List<String>> sparkRows = RowText.ordered(rows);
        List<List<String>> duckRows = RowText.ofMaps(expected, columns);
        assertThat(sparkRows).as("seed " + seed + ": Spark's rows, as a set").hasSize(duckRows.size())
            .containsExactlyInAnyOrderElementsOf(duckRows);
        assertThat(keys(sparkRows)).as("seed " + seed + ": ordered by entity and time, nulls last")
            .isEqualTo(keys(duckRows));
        long matched = sparkRows.stream().filter(r -> !r.get(3).equals("null")).count();
        long expired = sparkRows.stream().filter(r -> r.get(5).equals("null") && !r.get(6).equals("null")).count();
        assertThat(matched).as("some labels found a fresh event").isPositive();
        assertThat(expired).as("some labels' events were missing or older than the TTL").isPositive();
      }
    }
  }

  /** The (entity, time) of each row: the order both engines promise. */
  private static List<String> keys(List<List<String>> rows) {
    return rows.stream().map(r -> r.get(0) + "@" + r.get(1)).toList();
  }

  @Test
  void export_writesParquetAndTheLineageOfTheResolvedSnapshots() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable labels = store.createTable(TableDefinition.builder(LABELS, new Schema(
          Types.NestedField.required(1, "entity_id", Types.LongType.get()),
          Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "label", Types.IntegerType.get()))).build());
      FeatureTable events = store.createTable(TableDefinition.builder(EVENTS,
          featureSchema("score", Types.DoubleType.get())).build());
      labels.append(List.of(Map.of("entity_id", 1L, "label_time", T0.plusSeconds(600), "label", 1)));
      events.append(List.of(Map.of("entity_id", 1L, "event_time", T0, "score", 2.5, "tag", "a")));
      long eventsSnapshot = events.snapshots().current().orElseThrow().snapshotId();
      TrainingSetDefinition definition = TrainingSetDefinition.builder()
          .labels(labels.query(), "entity_id", "label_time")
          .features("ev", events.query().asOfSnapshot(eventsSnapshot), "entity_id", "event_time", Duration.ofHours(1),
              "score")
          .build();
      SparkTrainingSet set = SharedSpark.attach(store).trainingSet(definition);
      Path out = dir.resolve("train");
      SparkExport export = set.exportParquet(out.toString());

      assertThat(export.rows()).isEqualTo(1);
      JsonNode lineage = new ObjectMapper().readTree(Files.readString(out.resolve(SparkTrainingSet.LINEAGE_FILE)));
      assertThat(lineage.get("tables").get(1).get("table").asText()).isEqualTo("ml.events");
      assertThat(lineage.get("tables").get(1).get("snapshot_id").asLong()).isEqualTo(eventsSnapshot);
      assertThat(lineage.get("parameters").get("features").get(0).get("ttl").asText()).isEqualTo("PT1H");
      assertThat(lineage.get("exported_at").asText()).isNotBlank();
      List<Row> written = SharedSpark.session().read().parquet(out.toString()).collectAsList();
      assertThat(written.get(0).getAs("ev__score").toString()).isEqualTo("2.5");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> set.exportParquet(out.toString()))
          .isInstanceOf(dev.featurestore.AlreadyExistsException.class)
          .hasMessage("Cannot export training set: location exists: " + out);
    }
  }
}
