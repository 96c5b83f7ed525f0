package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plans DuckDB chooses over the adapter's relations. Relations read with an explicit schema
 * (field-id mapping), for which DuckDB estimates about one row; the engine's settings must keep
 * such estimates from choosing plans that are quadratic on real data.
 */
class DuckPlanShapeTest {
  @TempDir
  Path dir;

  FeatureStore store;
  DuckEngine sql;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = (DuckEngine) DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  @Test
  void trainingSet_runsAsAnAsofJoin_notANestedLoop() throws Exception {
    FeatureTable events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 0.5, 1.0)));
    FeatureTable labels = store.createTable(TableDefinition.builder(TableId.of("features", "labels"), new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()))).build());
    TestTables.append(labels, List.of(TestTables.record(labels, "entity_id", 1L, "label_time",
        OffsetDateTime.parse("2026-01-01T12:00:00Z"))));
    TrainingSet set = sql.trainingSet()
        .labels(labels.query(), "entity_id", "label_time")
        .features("ev", events.query(), "entity_id", "event_time", Duration.ofHours(1), "feature_a")
        .build();
    Map<String, dev.featurestore.TimeTravelQuery> relations = new LinkedHashMap<>();
    relations.put("labels", labels.query());
    relations.put("f_ev", events.query());

    String plan;
    try (Execution execution = new Execution(sql, set.sql(), relations, null).prepare();
        Statement statement = execution.connection().createStatement();
        ResultSet rs = statement.executeQuery("EXPLAIN " + set.sql())) {
      StringBuilder text = new StringBuilder();
      while (rs.next()) {
        text.append(rs.getString(2));
      }
      plan = text.toString();
    }

    assertThat(plan).contains("Asof Join").doesNotContain("Nested Loop Join");
    assertThat(set.toList()).hasSize(1);
  }

  @Test
  void engine_keepsParquetFootersBetweenQueries() throws Exception {
    try (var connection = sql.newConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT current_setting('parquet_metadata_cache')")) {
      rs.next();
      assertThat(rs.getBoolean(1)).isTrue();
    }
  }
}
