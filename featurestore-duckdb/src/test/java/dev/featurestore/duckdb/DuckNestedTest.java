package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Struct, list and map columns. DuckDB matches nested fields by name, so files written before a
 * nested rename or add are read through Iceberg's reader; results equal Iceberg's reader.
 */
class DuckNestedTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable table;
  Table iceberg;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    table = store.createTable(TableDefinition.builder(TableId.of("features", "nested"), new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StructType.of(
            Types.NestedField.optional(3, "a", Types.IntegerType.get()),
            Types.NestedField.optional(4, "b", Types.StringType.get()))),
        Types.NestedField.optional(5, "pts", Types.ListType.ofOptional(6, Types.StructType.of(
            Types.NestedField.optional(7, "x", Types.IntegerType.get()),
            Types.NestedField.optional(8, "y", Types.IntegerType.get())))),
        Types.NestedField.optional(9, "tags", Types.MapType.ofOptional(10, 11,
            Types.StringType.get(), Types.DoubleType.get())))).build());
    iceberg = table.unwrap(Table.class);
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private Record row(long id, Integer a, String b, Integer x, Map<String, Double> tags) {
    Schema schema = table.unwrap(Table.class).schema();
    GenericRecord s = GenericRecord.create(schema.findField("s").type().asStructType());
    s.set(0, a);
    s.set(1, b);
    Types.StructType pointType = schema.findField("pts").type().asListType().elementType().asStructType();
    GenericRecord point = GenericRecord.create(pointType);
    point.set(0, x);
    point.set(1, x == null ? null : x * 10);
    return TestTables.record(table, "id", id, "s", s, "pts", List.of(point), "tags", tags);
  }

  @Test
  void nestedColumns_withoutEvolution_readNatively() {
    TestTables.append(table, List.of(row(1, 1, "one", 5, Map.of("k", 1.5)), row(2, null, null, null, null)));
    try (SqlResult result = sql.query("SELECT * FROM t").table("t", table).execute()) {
      assertThat(normalize(result.toList())).isEqualTo(normalize(oracle(table.query())));
      assertThat(result.stats().tables().get(0).filesReadThroughIceberg()).isZero();
    }
    assertThat(sql.query("SELECT s.a AS a, pts[1].y AS y, tags['k'] AS k FROM t WHERE id = 1").table("t", table).toList())
        .containsExactly(Map.of("a", 1, "y", 50, "k", 1.5));
  }

  @Test
  void nestedRenameAndAdd_fallBackToIcebergReader_andMatchIt() {
    DataFile old = TestTables.append(table, List.of(row(1, 1, "one", 5, Map.of("k", 1.5)),
        row(2, 2, "two", 6, null), row(3, 3, "three", 7, Map.of()))).get(0);
    long first = TestTables.currentSnapshotId(table);
    iceberg.updateSchema()
        .renameColumn("s.a", "alpha")
        .renameColumn("pts.element.x", "px")
        .addColumn("s", "c", Types.DoubleType.get())
        .commit();
    table.refresh();
    TestTables.append(table, List.of(row(4, 4, "four", 8, Map.of("z", 9.0))));
    TestTables.positionDelete(table, old, 1); // id 2, in the file read through Iceberg

    try (SqlResult result = sql.query("SELECT * FROM t").table("t", table).execute()) {
      List<Map<String, Object>> rows = normalize(result.toList());
      assertThat(rows).isEqualTo(normalize(oracle(table.query())));
      assertThat(rows).hasSize(3);
      TableScanStats stats = result.stats().tables().get(0);
      assertThat(stats.plannedDataFiles()).isEqualTo(2);
      assertThat(stats.filesReadThroughIceberg()).isEqualTo(1);
    }
    // the renamed fields carry the old files' values (natively they would be null)
    assertThat(sql.query("SELECT id, s.alpha AS alpha, s.c AS c, pts[1].px AS px FROM t ORDER BY id")
        .table("t", table).toList())
        .containsExactly(
            map("id", 1L, "alpha", 1, "c", null, "px", 5),
            map("id", 3L, "alpha", 3, "c", null, "px", 7),
            map("id", 4L, "alpha", 4, "c", null, "px", 8));
    // the old snapshot reads with its own schema, which its file matches: no fallback
    try (SqlResult result = sql.query("SELECT * FROM t").table("t", table.query().asOfSnapshot(first))
        .execute()) {
      assertThat(normalize(result.toList())).isEqualTo(normalize(oracle(table.query().asOfSnapshot(first))));
      assertThat(result.stats().tables().get(0).filesReadThroughIceberg()).isZero();
    }
  }

  @Test
  void nestedDrop_fallsBack_andMatchesIcebergReader() {
    TestTables.append(table, List.of(row(1, 1, "one", 5, null), row(2, 2, "two", 6, null)));
    iceberg.updateSchema().deleteColumn("s.b").commit();
    table.refresh();
    try (SqlResult result = sql.query("SELECT id, s FROM t").table("t", table).execute()) {
      assertThat(normalize(result.toList())).isEqualTo(normalize(oracle(table.query().select("id", "s"))));
      assertThat(result.stats().tables().get(0).filesReadThroughIceberg()).isEqualTo(1);
    }
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static List<Map<String, Object>> oracle(dev.featurestore.TimeTravelQuery query) {
    try (QueryResult result = query.execute()) {
      return result.toList();
    }
  }

  /** Iceberg records as maps (the adapter's shape for structs), rows sorted by id. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> normalize(List<Map<String, Object>> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      out.add((Map<String, Object>) plain(row));
    }
    out.sort(Comparator.comparing(r -> (Long) r.get("id")));
    return out;
  }

  private static Object plain(Object value) {
    if (value instanceof Record record) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (Types.NestedField field : record.struct().fields()) {
        m.put(field.name(), plain(record.getField(field.name())));
      }
      return m;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> m = new LinkedHashMap<>();
      map.forEach((k, v) -> m.put(plain(k), plain(v)));
      return m;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(DuckNestedTest::plain).toList();
    }
    if (value instanceof CharSequence text) {
      return text.toString();
    }
    return value;
  }
}
