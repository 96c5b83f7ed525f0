package dev.featurestore.core.schema;

import static dev.featurestore.core.query.TestTables.append;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static dev.featurestore.core.query.TestTables.event;
import static dev.featurestore.core.query.TestTables.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.QueryResult;
import dev.featurestore.SchemaEvolution;
import dev.featurestore.TableDefinition;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest extends LocalStoreTest {
  private FeatureTable events;

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, true);
  }

  private FeatureTable numbersTable() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "count", Types.IntegerType.get()),
        Types.NestedField.optional(3, "ratio", Types.FloatType.get()),
        Types.NestedField.optional(4, "price", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(5, "address", Types.StructType.of(
            Types.NestedField.optional(6, "city", Types.StringType.get()))));
    return store.createTable(TableDefinition.builder("features.numbers", schema).build());
  }

  private static List<Map<String, Object>> rows(QueryResult result) {
    try (result) {
      return result.toList();
    }
  }

  @Test
  void addRenameMakeOptionalUpdateDoc_commit_landsInOneSchema() {
    Schema schema = events.evolveSchema()
        .addColumn("feature_c", Types.DoubleType.get(), "7-day mean")
        .renameColumn("feature_a", "feature_a_7d")
        .makeOptional("event_time")
        .updateDoc("feature_b", "feature b, rescaled")
        .commit();

    assertThat(schema.findField("feature_c").isOptional()).isTrue();
    assertThat(schema.findField("feature_c").doc()).isEqualTo("7-day mean");
    assertThat(schema.findField("feature_a")).isNull();
    assertThat(schema.findField("feature_a_7d").fieldId()).isEqualTo(events.schema().findField("feature_a_7d").fieldId());
    assertThat(schema.findField("event_time").isOptional()).isTrue();
    assertThat(schema.findField("feature_b").doc()).isEqualTo("feature b, rescaled");
    events.refresh();
    assertThat(events.schema().asStruct()).isEqualTo(schema.asStruct());
  }

  @Test
  void widen_intToLong_floatToDouble_decimalToLargerPrecision() {
    FeatureTable numbers = numbersTable();
    Schema schema = numbers.evolveSchema()
        .widenColumn("count", Types.LongType.get())
        .widenColumn("ratio", Types.DoubleType.get())
        .widenColumn("price", Types.DecimalType.of(18, 2))
        .commit();
    assertThat(schema.findType("count")).isEqualTo(Types.LongType.get());
    assertThat(schema.findType("ratio")).isEqualTo(Types.DoubleType.get());
    assertThat(schema.findType("price")).isEqualTo(Types.DecimalType.of(18, 2));
  }

  @Test
  void widen_oldDataReadsAsWiderType() {
    FeatureTable numbers = numbersTable();
    append(numbers, List.of(record(numbers, "id", 1L, "count", 7, "ratio", 0.5f, "price", new BigDecimal("12.34"))));
    numbers.evolveSchema().widenColumn("count", Types.LongType.get()).widenColumn("price", Types.DecimalType.of(18, 2)).commit();
    Map<String, Object> row = rows(numbers.query().execute()).get(0);
    assertThat(row.get("count")).isEqualTo(7L);
    assertThat(row.get("price")).isEqualTo(new BigDecimal("12.34"));
  }

  @Test
  void nestedNames_useDots() {
    FeatureTable numbers = numbersTable();
    Schema schema = numbers.evolveSchema()
        .addColumn("address.zip", Types.StringType.get())
        .renameColumn("address.city", "town")
        .commit();
    assertThat(schema.findField("address.zip")).isNotNull();
    assertThat(schema.findField("address.town").fieldId()).isEqualTo(6);
  }

  @Test
  void apply_previewsWithoutCommitting() {
    Schema before = events.schema();
    SchemaEvolution change = events.evolveSchema().addColumn("feature_c", Types.DoubleType.get());
    assertThat(change.apply().findField("feature_c")).isNotNull();
    events.refresh();
    assertThat(events.schema().asStruct()).isEqualTo(before.asStruct());
    assertThat(events.snapshots().history()).isEmpty();
  }

  @Test
  void stepsSeeEarlierSteps_renameTwiceAndWidenRenamed() {
    FeatureTable numbers = numbersTable();
    Schema schema = numbers.evolveSchema()
        .renameColumn("count", "clicks")
        .renameColumn("clicks", "clicks_7d")
        .widenColumn("clicks_7d", Types.LongType.get())
        .commit();
    assertThat(schema.findField("clicks_7d").fieldId()).isEqualTo(2);
    assertThat(schema.findType("clicks_7d")).isEqualTo(Types.LongType.get());
  }

  @Test
  void commit_twice_fails() {
    SchemaEvolution change = events.evolveSchema().addColumn("feature_c", Types.DoubleType.get());
    change.commit();
    assertThatThrownBy(change::commit)
        .isExactlyInstanceOf(dev.featurestore.InvalidStateException.class)
        .hasMessage("Cannot commit schema change: already committed");
  }

  @Test
  void commit_empty_isNoOpReturningCurrentSchema() {
    Schema schema = events.evolveSchema().commit();
    assertThat(schema.asStruct()).isEqualTo(events.schema().asStruct());
    assertThat(events.unwrap(org.apache.iceberg.Table.class).schemas()).hasSize(1);
  }

  @Test
  void badSteps_failWithExactMessages_andLeaveChangeUsableAndTableUnchanged() {
    FeatureTable numbers = numbersTable();
    Schema before = numbers.schema();
    SchemaEvolution change = numbers.evolveSchema().addColumn("extra", Types.StringType.get());

    assertThatThrownBy(() -> change.addColumn("count", Types.LongType.get()))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column: column already exists: count");
    assertThatThrownBy(() -> change.addColumn("extra", Types.LongType.get()))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column: column already exists: extra");
    assertThatThrownBy(() -> change.renameColumn("clicks", "clicks_7d"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot rename missing column: clicks");
    assertThatThrownBy(() -> change.renameColumn("count", "ratio"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot rename column count: column already exists: ratio");
    assertThatThrownBy(() -> change.widenColumn("clicks", Types.LongType.get()))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot widen missing column: clicks");
    assertThatThrownBy(() -> change.widenColumn("id", Types.IntegerType.get()))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot widen column id: cannot promote long to int");
    assertThatThrownBy(() -> change.widenColumn("price", Types.DecimalType.of(18, 3)))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot widen column price: cannot promote decimal(9, 2) to decimal(18, 3)");
    assertThatThrownBy(() -> change.dropColumn("clicks"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot drop missing column: clicks");

    Schema after = change.renameColumn("count", "clicks").commit();
    assertThat(after.findField("extra")).isNotNull();
    assertThat(after.findField("clicks").fieldId()).isEqualTo(before.findField("count").fieldId());
    assertThat(after.columns()).hasSize(before.columns().size() + 1);
  }

  @Test
  void badStep_onUntouchedChange_leavesTableUnchanged() {
    Schema before = events.schema();
    assertThatThrownBy(() -> events.evolveSchema().renameColumn("nope", "x"))
        .isInstanceOf(ValidationException.class);
    events.refresh();
    assertThat(events.schema().asStruct()).isEqualTo(before.asStruct());
  }

  @Test
  void drop_partitionSourceColumn_fails() {
    assertThatThrownBy(() -> events.evolveSchema().dropColumn("event_time"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot drop column: column is the source of partition field event_time_day: event_time");
  }

  @Test
  void drop_identifierField_fails() {
    Schema schema = new Schema(
        List.of(Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "v", Types.DoubleType.get())),
        java.util.Set.of(1));
    FeatureTable keyed = store.createTable(TableDefinition.builder("features.keyed", schema).build());
    assertThatThrownBy(() -> keyed.evolveSchema().dropColumn("id"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot drop column: column is an identifier field: id");
  }

  @Test
  void rename_oldSnapshotsReadOldNames_newSnapshotReadsRenamedColumnWithSameData() {
    append(events, List.of(event(events, 1, "2026-01-01T00:00:00Z", 0.25, 1.0)));
    long before = currentSnapshotId(events);
    events.evolveSchema().renameColumn("feature_a", "feature_a_7d").commit();
    append(events, List.of(record(events, "entity_id", 2L,
        "event_time", java.time.OffsetDateTime.parse("2026-01-02T00:00:00Z"), "feature_b", 2.0)));
    events.unwrap(org.apache.iceberg.Table.class).refresh();

    List<Map<String, Object>> old = rows(events.query().asOfSnapshot(before).execute());
    assertThat(old).containsExactly(row(1L, "2026-01-01T00:00:00Z", "feature_a", 0.25, 1.0));

    List<Map<String, Object>> now = rows(events.query().select("entity_id", "feature_a_7d").execute());
    assertThat(now).containsExactlyInAnyOrder(
        Map.of("entity_id", 1L, "feature_a_7d", 0.25),
        mapWithNull("entity_id", 2L, "feature_a_7d"));
    assertThat(events.query().asOfSnapshot(before).schema().findField("feature_a")).isNotNull();
  }

  @Test
  void add_oldRowsReadNullForNewColumn() {
    append(events, List.of(event(events, 1, "2026-01-01T00:00:00Z", 0.5, 1.0)));
    events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "new").commit();
    List<Map<String, Object>> rows = rows(events.query().select("entity_id", "feature_c").execute());
    assertThat(rows).containsExactly(mapWithNull("entity_id", 1L, "feature_c"));
  }

  @Test
  void drop_oldSnapshotStillReadsDroppedColumn() {
    append(events, List.of(event(events, 1, "2026-01-01T00:00:00Z", 0.5, 1.5)));
    long before = currentSnapshotId(events);
    events.evolveSchema().dropColumn("feature_b").commit();
    events.refresh();
    assertThat(events.schema().findField("feature_b")).isNull();

    List<Map<String, Object>> old = rows(events.query().asOfSnapshot(before).select("entity_id", "feature_b").execute());
    assertThat(old).containsExactly(Map.of("entity_id", 1L, "feature_b", 1.5));
  }

  private static Map<String, Object> row(long id, String time, String aName, Double a, Double b) {
    Map<String, Object> map = new java.util.LinkedHashMap<>();
    map.put("entity_id", id);
    map.put("event_time", java.time.OffsetDateTime.parse(time));
    map.put(aName, a);
    map.put("feature_b", b);
    return map;
  }

  private static Map<String, Object> mapWithNull(String k1, Object v1, String nullKey) {
    Map<String, Object> map = new java.util.LinkedHashMap<>();
    map.put(k1, v1);
    map.put(nullKey, null);
    return map;
  }
}
