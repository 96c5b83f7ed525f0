package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.query.UuidRanges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 item 13: the planner never prunes by uuid bounds (Iceberg 1.12 compares them signed,
 * Parquet writes them unsigned), so uuids on both sides of the sign bit in one file are all found,
 * whether the file carries bounds (other engines, tables from before the workaround) or not; and
 * uuid range filters answer the core query's rows: unsigned byte order, DuckDB's own.
 */
class DuckUuidTest {
  static final UUID LOW = UUID.fromString("00000000-0000-0000-0000-000000000001");
  static final UUID HIGH = UUID.fromString("ffffffff-0000-0000-0000-000000000000");

  @TempDir Path dir;

  @Test
  void equalityFilter_findsEachUuid_inOneFile_withOrWithoutBounds() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
         SqlEngine sql = DuckQueries.builder(store).threads(1).build()) {
      int n = 0;
      for (boolean bounds : List.of(false, true)) {
        TableDefinition.Builder def = TableDefinition.builder("t.uuids_" + n++, new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get())));
        if (bounds) {
          def.property("write.metadata.metrics.column.u", "full");
        }
        FeatureTable table = store.createTable(def.build());
        List<DataFile> files = TestTables.append(table, List.of(TestTables.record(table, "id", 1L, "u", LOW),
            TestTables.record(table, "id", 2L, "u", HIGH)));
        assertThat(files).hasSize(1);
        assertThat(files.get(0).lowerBounds().containsKey(2)).isEqualTo(bounds);
        for (UUID value : List.of(LOW, HIGH)) {
          long id = value.equals(LOW) ? 1L : 2L;
          try (SqlResult result = sql.query("SELECT id FROM t")
              .table("t", table.query().filter(Expressions.equal("u", value))).execute()) {
            assertThat(result.toList()).as("bounds=%s %s", bounds, value).containsExactly(Map.of("id", id));
            assertThat(result.stats().scanStats("t").plannedDataFiles()).isEqualTo(1);
          }
          assertThat(sql.query("SELECT id FROM t WHERE u = '" + value + "'::UUID").table("t", table).toList())
              .containsExactly(Map.of("id", id));
        }
      }
    }
  }

  @Test
  void rangeFilters_sameRowsAsCoreQuery_andAsDuckDb_unsigned() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
         SqlEngine sql = DuckQueries.builder(store).threads(1).build()) {
      int n = 0;
      for (boolean oneFile : List.of(false, true)) {
        for (boolean bounds : List.of(false, true)) {
          FeatureTable table = UuidRanges.create(store, "t.ranges_" + n++, oneFile, bounds);
          assertThat(sql.query("SELECT DISTINCT typeof(u) AS t FROM t").table("t", table).toList())
              .containsExactly(Map.of("t", "UUID"));
          for (UuidRanges.Case c : UuidRanges.cases()) {
            String as = "oneFile=" + oneFile + " bounds=" + bounds + " " + c.filter();
            List<Long> expected = UuidRanges.expectedIds(c);
            List<Long> core = new ArrayList<>();
            table.query().filter(c.filter()).execute().forEach(row -> core.add((Long) row.get("id")));
            assertThat(core).as(as).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(ids(sql.query("SELECT id FROM t").table("t", table.query().filter(c.filter()))))
                .as(as).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(ids(sql.query("SELECT id FROM t WHERE " + duckSql(c.filter(), c.literal())).table("t", table)))
                .as(as).containsExactlyInAnyOrderElementsOf(expected);
          }
        }
      }
    }
  }

  @Test
  void rangeFilterSql_comparesUuids_notStrings() {
    Types.StructType struct = Types.StructType.of(Types.NestedField.optional(2, "u", Types.UUIDType.get()));
    String high = HIGH.toString();
    assertThat(ExpressionSql.toSql(Expressions.greaterThan("u", HIGH), struct, true, id -> "d.c" + id))
        .isEqualTo("(d.c2 > CAST('" + high + "' AS UUID))");
    // a string literal binds to a uuid, so it is compared as one too
    assertThat(ExpressionSql.toSql(Expressions.not(Expressions.lessThan("u", high)), struct, true, id -> "d.c" + id))
        .isEqualTo("(d.c2 >= CAST('" + high + "' AS UUID))");
  }

  /** DuckDB's own comparison for a case, written by hand (not by ExpressionSql). */
  private static String duckSql(Expression filter, UUID literal) {
    String text = filter.toString();
    boolean negated = text.startsWith("not(");
    String op = text.contains("<=") ? "<=" : text.contains(">=") ? ">=" : text.contains("<") ? "<" : ">";
    String cmp = "u " + op + " '" + literal + "'::UUID";
    return negated ? "NOT (" + cmp + ")" : cmp;
  }

  private static List<Long> ids(SqlQuery query) {
    List<Long> ids = new ArrayList<>();
    query.toList().forEach(row -> ids.add((Long) row.get("id")));
    return ids;
  }
}
