package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.FileDecision;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * uuid range filters order uuids as unsigned bytes (the Iceberg spec, DuckDB, Spark), not as
 * Java's signed {@code UUID.compareTo} that Iceberg 1.12's row Evaluator uses (apache/iceberg#14216);
 * a null uuid compares unknown and is dropped.
 */
class QueryUuidTest {
  @TempDir Path dir;

  @Test
  void rangeFilters_orderUuidsUnsigned_inSeveralFilesOrOne_withOrWithoutBounds() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      int n = 0;
      for (boolean oneFile : List.of(false, true)) {
        for (boolean bounds : List.of(false, true)) {
          FeatureTable table = UuidRanges.create(store, "t.uuids_" + n++, oneFile, bounds);
          for (UuidRanges.Case c : UuidRanges.cases()) {
            List<Long> expected = UuidRanges.expectedIds(c);
            String as = "oneFile=" + oneFile + " bounds=" + bounds + " " + c.filter();
            assertThat(ids(table, c.filter())).as(as).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(table.query().filter(c.filter()).count()).as(as).isEqualTo(expected.size());
            assertThat(table.explainPruning(c.filter()).files()).as(as)
                .isNotEmpty().allMatch(FileDecision::kept);
          }
        }
      }
    }
  }

  @Test
  void rangeFilters_combineWithOtherPredicates() {
    UUID half = UUID.fromString("80000000-0000-0000-0000-000000000000");
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = UuidRanges.create(store, "t.uuids", false, true);
      // ids 2..5 are at or above 80000000-... unsigned; the null row (6) only through isNull or id
      assertThat(ids(table, Expressions.or(Expressions.greaterThanOrEqual("u", half), Expressions.isNull("u"))))
          .containsExactlyInAnyOrder(2L, 3L, 4L, 5L, 6L);
      assertThat(ids(table, Expressions.and(Expressions.greaterThan("u", half), Expressions.lessThan("id", 5L))))
          .containsExactlyInAnyOrder(3L, 4L);
      assertThat(ids(table, Expressions.not(Expressions.and(Expressions.greaterThan("u", half),
          Expressions.lessThan("id", 5L))))).containsExactlyInAnyOrder(0L, 1L, 2L, 5L, 6L);
    }
  }

  /** Partition values of a uuid are compared signed by Iceberg's residuals too: never trusted for a uuid range. */
  @Test
  void rangeFilters_onUuidPartitions_checkEveryRow() {
    UUID low = UuidRanges.VALUES.get(0);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("t.by_uuid", new Schema(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "u", Types.UUIDType.get())))
          .partitionBy(s -> PartitionSpec.builderFor(s).identity("u").build()).build());
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < UuidRanges.VALUES.size(); i++) {
        rows.add(TestTables.record(table, "id", (long) i, "u", UuidRanges.VALUES.get(i)));
      }
      TestTables.append(table, rows);
      Expression above = Expressions.greaterThan("u", low);
      assertThat(ids(table, above)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
      assertThat(table.query().filter(above).count()).isEqualTo(5);
      assertThat(table.explainPruning(above).files()).hasSize(6).allSatisfy(f -> {
        assertThat(f.kept()).isTrue();
        assertThat(f.reason()).endsWith("rows checked against " + above);
      });
    }
  }

  private static List<Long> ids(FeatureTable table, Expression filter) {
    List<Long> ids = new ArrayList<>();
    table.query().filter(filter).execute().forEach(row -> ids.add((Long) row.get("id")));
    return ids;
  }
}
