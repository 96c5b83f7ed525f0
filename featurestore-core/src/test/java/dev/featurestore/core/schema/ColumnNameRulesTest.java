package dev.featurestore.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidDataException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Column names that differ only by case, and names Iceberg reserves for metadata columns, are
 * refused wherever a column is made: create, add, rename and an ingest that adds columns.
 */
class ColumnNameRulesTest {
  @TempDir Path dir;
  FeatureStore store;
  FeatureTable table;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "feature", Types.DoubleType.get()),
        Types.NestedField.optional(3, "other", Types.DoubleType.get()),
        Types.NestedField.optional(4, "loc", Types.StructType.of(
            Types.NestedField.optional(5, "lat", Types.DoubleType.get()),
            Types.NestedField.optional(6, "pos", Types.LongType.get()))));
    table = store.createTable(TableDefinition.builder(TableId.of("t", "names"), schema).build());
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static TableDefinition definition(String name, Types.NestedField... fields) {
    return TableDefinition.builder(TableId.of("t", name), new Schema(fields)).build();
  }

  @Test
  void create_namesDifferingOnlyByCase_areRefused() {
    assertThatThrownBy(() -> store.createTable(definition("caps",
        Types.NestedField.optional(1, "Feature", Types.DoubleType.get()),
        Types.NestedField.optional(2, "feature", Types.DoubleType.get()))))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot create table t.caps: column names differ only by case: Feature, feature");
    assertThatThrownBy(() -> store.createTable(definition("nested",
        Types.NestedField.optional(1, "s", Types.StructType.of(
            Types.NestedField.optional(2, "A", Types.IntegerType.get()),
            Types.NestedField.optional(3, "a", Types.IntegerType.get()))))))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot create table t.nested: column names differ only by case: s.A, s.a");
    assertThat(store.listTables("t")).extracting(TableId::name).containsExactly("names");
  }

  @ParameterizedTest
  @ValueSource(strings = {"_pos", "_file", "_deleted", "_spec_id", "_partition", "_row_id",
      "_last_updated_sequence_number", "file_path", "pos", "_POS", "File_Path"})
  void create_reservedNames_areRefused(String name) {
    assertThatThrownBy(() -> store.createTable(definition("reserved",
        Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, name, Types.LongType.get()))))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot create table t.reserved: column name is reserved by Iceberg for metadata columns: " + name);
  }

  @Test
  void addAndRename_collisionsByCase_andReservedNames_areRefused() {
    long schemaId = table.schema().schemaId();
    assertThatThrownBy(() -> table.evolveSchema().addColumn("FEATURE", Types.DoubleType.get(), null))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column FEATURE: column names differ only by case: feature, FEATURE");
    assertThatThrownBy(() -> table.evolveSchema().renameColumn("other", "Feature"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot rename column other: column names differ only by case: feature, Feature");
    assertThatThrownBy(() -> table.evolveSchema().addColumn("loc.LAT", Types.DoubleType.get(), null))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column loc.LAT: column names differ only by case: lat, LAT");
    assertThatThrownBy(() -> table.evolveSchema().addColumn("_pos", Types.LongType.get(), null))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column _pos: column name is reserved by Iceberg for metadata columns: _pos");
    assertThatThrownBy(() -> table.evolveSchema().renameColumn("other", "_file"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot rename column other: column name is reserved by Iceberg for metadata columns: _file");
    assertThat(table.schema().schemaId()).isEqualTo(schemaId);

    // a column may change only its own case, and a nested field may be called pos
    table.evolveSchema().renameColumn("feature", "Feature").addColumn("loc.file_path", Types.StringType.get(), null).commit();
    assertThat(table.schema().findField("Feature")).isNotNull();
    assertThat(table.schema().findField("loc.file_path")).isNotNull();
  }

  @Test
  void ingestAddingAColumnThatDiffersOnlyByCase_isRefused() throws Exception {
    Path csv = Files.writeString(dir.resolve("caps.csv"), "id,Feature\n1,0.5\n");
    assertThatThrownBy(() -> table.ingest().csv(csv).autoEvolveSchema(true).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 2: add column Feature: column names differ only by case: feature, Feature");
    assertThatThrownBy(() -> table.ingest().rows(List.of(Map.of("id", 1L, "_pos", 3L))).autoEvolveSchema(true).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: add column _pos: column name is reserved by Iceberg for metadata columns: _pos");
    assertThat(table.schema().columns()).hasSize(4);
    assertThat(table.snapshots().history()).isEmpty();
  }
}
