package dev.featurestore.core.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BatchLookupResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.PointLookup;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lookups by uuid keys (whatever bounds the files carry) and by floating-point keys (NaN refused). */
class LookupKeysTest {
  static final UUID LOW = UUID.fromString("00000000-0000-0000-0000-000000000001");
  static final UUID HIGH = UUID.fromString("ffffffff-0000-0000-0000-000000000000");

  @TempDir Path dir;

  /**
   * Issue 12 item 13: both keys in one file. Default tables record no uuid bounds, but the Parquet
   * footer still has unsigned min/max; "full" stands for tables written by other engines or before
   * the workaround, whose manifests carry the bounds Iceberg 1.12 compares signed.
   */
  @Test
  void uuidKeys_onBothSidesOfTheSignBit_inOneFile_areFound_withOrWithoutBounds_andBloomFilters() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      int n = 0;
      for (String mode : List.of("default", "full", "full+bloom")) {
        TableDefinition.Builder def = TableDefinition.builder("t.uuids_" + n++, schema());
        if (mode.startsWith("full")) {
          def.property("write.metadata.metrics.column.u", "full");
        }
        if (mode.endsWith("bloom")) {
          def.bloomFilter("u", 100);
        }
        FeatureTable table = store.createTable(def.build());
        List<DataFile> files = TestTables.append(table, List.of(TestTables.record(table, "id", 1L, "u", LOW),
            TestTables.record(table, "id", 2L, "u", HIGH)));
        assertThat(files).hasSize(1);
        if (mode.startsWith("full")) {
          assertThat(files.get(0).lowerBounds()).as("the file carries uuid bounds").containsKey(2);
        }

        PointLookup lookup = table.lookup("u");
        assertThat(lookup.get(LOW).row().orElseThrow().get("id")).as(mode).isEqualTo(1L);
        assertThat(lookup.get(HIGH).row().orElseThrow().get("id")).as(mode).isEqualTo(2L);
        BatchLookupResult batch = lookup.getAll(List.of(LOW, HIGH));
        assertThat(batch.rows()).as(mode).containsOnlyKeys(LOW, HIGH);
        assertThat(table.lookup("id").get(2L).row().orElseThrow().get("u")).isEqualTo(HIGH);
        // the core query and its explanation ignore the bounds too
        for (UUID value : List.of(LOW, HIGH)) {
          assertThat(table.query().filter(Expressions.equal("u", value)).count()).as(mode).isEqualTo(1);
          assertThat(table.explainPruning(Expressions.equal("u", value)).kept()).as(mode).hasSize(1);
        }
      }
    }
  }

  /** Issue 12 item 19: NaN equals no value (IEEE 754), so a NaN key is an invalid argument, typed and named. */
  @Test
  void nanKeys_areRefused_typed() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("t.scores", new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "x", Types.DoubleType.get()),
          Types.NestedField.optional(3, "y", Types.FloatType.get()))).build());
      TestTables.append(table, List.of(TestTables.record(table, "id", 1L, "x", Double.NaN, "y", Float.NaN),
          TestTables.record(table, "id", 2L, "x", 1.0, "y", 1.0f)));
      String message = "Cannot look up rows of table t.scores: NaN equals no key (IEEE 754); find NaN rows "
          + "with query().filter(Expressions.isNaN(\"%s\")): NaN";
      assertThatThrownBy(() -> table.lookup("x").get(Double.NaN))
          .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message, "x");
      assertThatThrownBy(() -> table.lookup("x").getAll(List.of(1.0, Double.NaN)))
          .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message, "x");
      assertThatThrownBy(() -> table.lookup("y").get(Float.NaN))
          .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message, "y");
      // checked after conversion: NaN written as text is NaN too
      assertThatThrownBy(() -> table.lookup("x").get("NaN"))
          .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message, "x");
      assertThat(table.lookup("x").get(1.0).row().orElseThrow().get("id")).isEqualTo(2L);
      assertThat(table.lookup("y").getAll(List.of(1.0f)).rows()).hasSize(1);
    }
  }

  private static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "u", Types.UUIDType.get()));
  }
}
