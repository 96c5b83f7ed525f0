package dev.featurestore.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ColumnNames;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableDefinition;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Column names that differ only by case, and Iceberg's reserved metadata names (issue 12, items 10 and 11). */
class ColumnNamesTest extends LocalStoreTest {
  private FeatureTable simple() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "Feature", Types.DoubleType.get()),
        Types.NestedField.optional(3, "address", Types.StructType.of(
            Types.NestedField.optional(4, "City", Types.StringType.get()))));
    return store.createTable(TableDefinition.builder("features.simple", schema).build());
  }

  @Test
  void create_namesDifferingOnlyByCase_fails() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "Feature", Types.LongType.get()),
        Types.NestedField.optional(2, "feature", Types.DoubleType.get()));
    assertThatThrownBy(() -> TableDefinition.builder("features.cased", schema))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot define table features.cased: column name differs only by case from column Feature: feature");
    assertThat(store.listTables("features")).isEmpty();
  }

  @Test
  void create_nestedNamesDifferingOnlyByCase_fails_butSameNameAtOtherLevelsIsFine() {
    Schema nested = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StructType.of(
            Types.NestedField.optional(3, "Zip", Types.StringType.get()),
            Types.NestedField.optional(4, "zip", Types.StringType.get()))));
    assertThatThrownBy(() -> TableDefinition.builder("features.nested", nested))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot define table features.nested: column name differs only by case from column s.Zip: s.zip");

    Schema inList = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "l", Types.ListType.ofOptional(3, Types.StructType.of(
            Types.NestedField.optional(4, "a", Types.StringType.get()),
            Types.NestedField.optional(5, "A", Types.StringType.get())))));
    assertThatThrownBy(() -> TableDefinition.builder("features.inlist", inList))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot define table features.inlist: column name differs only by case from column l.element.a: l.element.A");

    Schema levels = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StructType.of(Types.NestedField.optional(3, "ID", Types.LongType.get()))));
    assertThat(store.createTable(TableDefinition.builder("features.levels", levels).build()).schema().findField("s.ID"))
        .isNotNull();
  }

  @Test
  void add_nameDifferingOnlyByCase_fails() {
    FeatureTable table = simple();
    assertThatThrownBy(() -> table.evolveSchema().addColumn("feature", Types.DoubleType.get()))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column feature: column name differs only by case from column Feature: feature");
    assertThatThrownBy(() -> table.evolveSchema().addColumn("address.city", Types.StringType.get()))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column address.city: column name differs only by case from column City: city");
    // two steps of one change collide too
    assertThatThrownBy(() -> table.evolveSchema().addColumn("extra", Types.DoubleType.get())
            .addColumn("EXTRA", Types.DoubleType.get()))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot add column EXTRA: column name differs only by case from column extra: EXTRA");
    table.refresh();
    assertThat(table.schema().columns()).hasSize(3);
  }

  @Test
  void rename_ontoNameDifferingOnlyByCase_fails_butChangingOwnCaseIsFine() {
    FeatureTable table = simple();
    assertThatThrownBy(() -> table.evolveSchema().renameColumn("id", "FEATURE"))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot rename column id: column name differs only by case from column Feature: FEATURE");
    Schema renamed = table.evolveSchema().renameColumn("Feature", "feature").renameColumn("address.City", "city").commit();
    assertThat(renamed.findField("feature").fieldId()).isEqualTo(2);
    assertThat(renamed.findField("address.city").fieldId()).isEqualTo(4);
  }

  @Test
  void reservedNames_areTheMetadataColumnsOfIceberg() throws IllegalAccessException {
    Set<String> expected = new TreeSet<>();
    for (Field field : MetadataColumns.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == Types.NestedField.class) {
        expected.add(((Types.NestedField) field.get(null)).name().toLowerCase(Locale.ROOT));
      }
    }
    expected.add(MetadataColumns.PARTITION_COLUMN_NAME);
    assertThat(new TreeSet<>(ColumnNames.RESERVED)).isEqualTo(expected);
  }

  @Test
  void create_reservedName_fails_caseInsensitively() {
    for (String name : List.of("_pos", "_FILE", "_deleted", "_spec_id", "_partition", "file_path", "pos", "_row_id",
        "_last_updated_sequence_number")) {
      Schema schema = new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, name, Types.LongType.get()));
      assertThatThrownBy(() -> TableDefinition.builder("features.reserved", schema))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot define table features.reserved: column name is reserved by Iceberg: " + name);
    }
  }

  @Test
  void addOrRename_reservedName_fails() {
    FeatureTable table = simple();
    assertThatThrownBy(() -> table.evolveSchema().addColumn("_pos", Types.LongType.get()))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add column _pos: column name is reserved by Iceberg: _pos");
    assertThatThrownBy(() -> table.evolveSchema().renameColumn("Feature", "_Deleted"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot rename column Feature: column name is reserved by Iceberg: _Deleted");
    // nested fields are not projected next to metadata columns: allowed
    assertThat(table.evolveSchema().addColumn("address.pos", Types.LongType.get()).commit().findField("address.pos"))
        .isNotNull();
  }

  /** Why: with a user column _pos, a read fails as soon as a position delete exists. */
  @Test
  void userColumnPos_wouldBreakReadsWithPositionDeletes_soItIsRefused() {
    FeatureTable table = simple();
    List<DataFile> files = TestTables.append(table, List.of(
        TestTables.record(table, "id", 1L, "Feature", 1.0), TestTables.record(table, "id", 2L, "Feature", 2.0)));
    TestTables.positionDelete(table, files.get(0), 0);
    try (var result = table.query().execute()) {
      assertThat(result.toList()).hasSize(1);
    }
    assertThatThrownBy(() -> table.evolveSchema().addColumn("_pos", Types.LongType.get()).commit())
        .isExactlyInstanceOf(InvalidArgumentException.class);
  }

  /** Issue 12 item 14: a rename moves the bloom filter's sizing with it, so new files keep small filters. */
  @Test
  void rename_bloomFilteredColumn_movesNdvAndFpp_andNewFilesStaySmall() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "key", Types.StringType.get()));
    FeatureTable table = store.createTable(TableDefinition.builder("features.bloomed", schema)
        .bloomFilter("key", 100, 0.01).build());
    table.evolveSchema().renameColumn("key", "lookup_key").commit();
    table.refresh();
    assertThat(table.properties())
        .containsEntry("write.parquet.bloom-filter-enabled.column.lookup_key", "true")
        .containsEntry("write.parquet.bloom-filter-ndv.column.lookup_key", "100")
        .containsEntry("write.parquet.bloom-filter-fpp.column.lookup_key", "0.01")
        .doesNotContainKeys("write.parquet.bloom-filter-ndv.column.key", "write.parquet.bloom-filter-fpp.column.key");
    List<org.apache.iceberg.data.Record> rows = new java.util.ArrayList<>();
    for (long i = 0; i < 80; i++) {
      rows.add(TestTables.record(table, "id", i, "lookup_key", "k" + i));
    }
    DataFile file = TestTables.append(table, rows).get(0);
    assertThat(file.fileSizeInBytes()).isLessThan(100_000L); // Parquet's default filter alone is 1 MiB
  }

  /** Issue 12 item 13: Iceberg 1.12 compares uuid bounds signed (apache/iceberg#14216): no bounds for uuid columns. */
  @Test
  void uuidColumns_recordNoBounds_soFiltersFindEveryValue() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "u", Types.UUIDType.get()));
    FeatureTable table = store.createTable(TableDefinition.builder("features.uuids", schema).build());
    assertThat(table.properties()).containsEntry("write.metadata.metrics.column.u", "counts");
    table.evolveSchema().addColumn("v", Types.UUIDType.get()).commit();
    table.refresh();
    assertThat(table.properties()).containsEntry("write.metadata.metrics.column.v", "counts");
    java.util.UUID low = java.util.UUID.fromString("00000000-0000-0000-0000-000000000001");
    java.util.UUID high = java.util.UUID.fromString("ffffffff-0000-0000-0000-000000000000");
    TestTables.append(table, List.of(TestTables.record(table, "id", 1L, "u", low, "v", low),
        TestTables.record(table, "id", 2L, "u", high, "v", high)));
    for (java.util.UUID value : List.of(low, high)) {
      assertThat(table.query().filter(org.apache.iceberg.expressions.Expressions.equal("u", value)).count()).isEqualTo(1);
      assertThat(table.query().filter(org.apache.iceberg.expressions.Expressions.equal("v", value)).count()).isEqualTo(1);
    }
  }
}
