package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.DeleteResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deletes {@code table.deleteRows()} writes (deletion vectors on format 3, position deletes on
 * format 2, whole files dropped) are applied by the DuckDB adapter: its rows equal Iceberg's reader
 * and the expected rows after each delete, and at the snapshots before it.
 */
class DuckRowDeletesTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "x", Types.DoubleType.get()),
      Types.NestedField.optional(3, "u", Types.UUIDType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()));

  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;

  @AfterEach
  void close() {
    if (sql != null) {
      sql.close();
    }
    if (store != null) {
      store.close();
    }
  }

  static List<Map<String, Object>> batch(long from) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = from; id < from + 10; id++) {
      Map<String, Object> row = new HashMap<>();
      row.put("id", id);
      row.put("x", id % 5 == 0 ? Double.valueOf(Double.NaN) : id % 5 == 1 ? null : Double.valueOf(id));
      row.put("u", id % 3 == 0 ? null : new UUID(id % 2 == 0 ? Long.MIN_VALUE + id : id, id));
      row.put("ts", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(id * 3600));
      rows.add(row);
    }
    return rows;
  }

  Set<Long> duckIds(FeatureTable table, Long snapshotId) {
    Set<Long> ids = new TreeSet<>();
    SqlQuery query = sql.query("SELECT id FROM t");
    query = snapshotId == null ? query.table("t", table) : query.table("t", table.query().asOfSnapshot(snapshotId));
    try (SqlResult result = query.execute()) {
      result.toList().forEach(r -> ids.add((Long) r.get("id")));
    }
    return ids;
  }

  static Set<Long> icebergIds(FeatureTable table, long snapshotId) throws IOException {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Set<Long> ids = new TreeSet<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(iceberg).useSnapshot(snapshotId).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    }
    return ids;
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void apiDeletes_byFilterAndKeys_areAppliedByDuckDb(int formatVersion) throws IOException {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    FeatureTable table = store.createTable(TableDefinition.builder("t.rows", SCHEMA).bloomFilter("id", 100)
        .formatVersion(formatVersion).build());
    for (long from = 0; from < 30; from += 10) {
      table.append(batch(from));
    }
    Set<Long> expected = new TreeSet<>();
    for (long id = 0; id < 30; id++) {
      expected.add(id);
    }
    List<Long> snapshots = new ArrayList<>();
    snapshots.add(table.snapshots().current().orElseThrow().snapshotId());

    DeleteResult nan = table.deleteRows().where(Expressions.isNaN("x")).execute();
    assertThat(nan.rowsDeleted()).isEqualTo(6);
    expected.removeAll(List.of(0L, 5L, 10L, 15L, 20L, 25L));
    snapshots.add(nan.snapshotId().getAsLong());

    DeleteResult uuids = table.deleteRows().where(Expressions.greaterThan("u", new UUID(0, 100))).execute();
    expected.removeIf(id -> id % 3 != 0); // every uuid set is greater, the high-bit ones too (unsigned)
    assertThat(uuids.rowsDeleted()).isPositive();
    snapshots.add(uuids.snapshotId().getAsLong());

    DeleteResult keys = table.deleteRows().keys("id", List.of(3L, 9L, 27L)).execute();
    expected.removeAll(List.of(3L, 9L, 27L));
    snapshots.add(keys.snapshotId().getAsLong());

    DeleteResult whole = table.deleteRows().where(Expressions.lessThan("id", 10L)).execute();
    assertThat(whole.dataFilesRemoved()).isEqualTo(1);
    expected.removeIf(id -> id < 10);
    snapshots.add(whole.snapshotId().getAsLong());

    assertThat(duckIds(table, null)).isEqualTo(expected);
    for (long snapshot : snapshots) {
      assertThat(duckIds(table, snapshot)).as("snapshot %s", snapshot).isEqualTo(icebergIds(table, snapshot));
    }
    assertThat(icebergIds(table, snapshots.get(snapshots.size() - 1))).isEqualTo(expected);
  }
}
