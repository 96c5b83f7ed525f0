package dev.featurestore.core.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.LookupResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup returns every primitive type as a generic record holds it, whether the file is read by
 * {@link RowGroupScan} (no deletes, or a position delete applied by position) or by Iceberg's
 * generic reader (a file with an equality delete): every answer equals the rows written, nulls
 * included.
 */
class LookupValuesTest {
  @TempDir Path dir;

  @Test
  void everyPrimitiveType_isReturnedAsWritten_byTheRowGroupScanAndByIcebergsReader() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable plain = store.createTable(TableDefinition.builder("t.plain", schema()).build());
      FeatureTable withDeletes = store.createTable(TableDefinition.builder("t.deletes", schema()).build());
      FeatureTable equality = store.createTable(TableDefinition.builder("t.equality", schema()).build());
      List<Record> written = new ArrayList<>();
      for (long id = 0; id < 50; id++) {
        written.add(row(plain, id));
      }
      TestTables.append(plain, written);
      List<DataFile> files = TestTables.append(withDeletes, written);
      TestTables.positionDelete(withDeletes, files.get(0), 49); // id 49 gone from this table
      TestTables.append(equality, written);
      TestTables.equalityDelete(equality, "id", 49L); // and from this one

      assertThat(RowGroupScan.applies(task(plain), footer(plain), iceberg(plain).schema())).isTrue();
      assertThat(RowGroupScan.applies(task(withDeletes), footer(withDeletes), iceberg(withDeletes).schema())).isTrue();
      assertThat(RowGroupScan.applies(task(equality), footer(equality), iceberg(equality).schema())).isFalse();
      for (long id : new long[] {0, 1, 7, 48}) {
        Map<String, Object> expected = comparable(values(written.get((int) id)));
        LookupResult fast = plain.lookup("id").latestBy("ts").get(id);
        LookupResult positional = withDeletes.lookup("id").latestBy("ts").get(id);
        LookupResult generic = equality.lookup("id").latestBy("ts").get(id);
        assertThat(comparable(fast.row().orElseThrow())).as("id %s by RowGroupScan", id).isEqualTo(expected);
        assertThat(comparable(positional.row().orElseThrow())).as("id %s by RowGroupScan, deletes applied", id)
            .isEqualTo(expected);
        assertThat(comparable(generic.row().orElseThrow())).as("id %s by Iceberg's reader", id).isEqualTo(expected);
        assertThat(fast.stats().rowGroupsRead()).isEqualTo(1);
      }
      assertThat(plain.lookup("id").get(49L).row()).isPresent();
      assertThat(withDeletes.lookup("id").get(49L).row()).isEmpty();
      assertThat(equality.lookup("id").get(49L).row()).isEmpty();
      assertThat(plain.lookup("s").get("s-8").row().orElseThrow().get("id")).isEqualTo(8L);
      assertThat(plain.lookup("u").get(uuid(8)).row().orElseThrow().get("id")).isEqualTo(8L);
      assertThat(plain.lookup("id").get(1000L).row()).isEmpty();
    }
  }

  private static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "b", Types.BooleanType.get()),
        Types.NestedField.optional(3, "i", Types.IntegerType.get()),
        Types.NestedField.optional(4, "f", Types.FloatType.get()),
        Types.NestedField.optional(5, "d", Types.DoubleType.get()),
        Types.NestedField.optional(6, "day", Types.DateType.get()),
        Types.NestedField.optional(7, "t", Types.TimeType.get()),
        Types.NestedField.optional(8, "ts", Types.TimestampType.withZone()),
        Types.NestedField.optional(9, "local", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(10, "s", Types.StringType.get()),
        Types.NestedField.optional(11, "u", Types.UUIDType.get()),
        Types.NestedField.optional(12, "fixed", Types.FixedType.ofLength(4)),
        Types.NestedField.optional(13, "bin", Types.BinaryType.get()),
        Types.NestedField.optional(14, "dec", Types.DecimalType.of(10, 3)));
  }

  /** Row {@code id}; every column of row 7 is null but the id. */
  private static Record row(FeatureTable table, long id) {
    if (id == 7) {
      return TestTables.record(table, "id", id);
    }
    return TestTables.record(table, "id", id, "b", id % 2 == 0, "i", (int) id * 3, "f", id / 4f, "d", id / 8.0,
        "day", LocalDate.of(2026, 1, 1).plusDays(id), "t", LocalTime.of(1, 2, 3).plusNanos(id * 1000),
        "ts", OffsetDateTime.parse("2026-01-01T00:00:00Z").plusSeconds(id).plusNanos(123_000),
        "local", LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(id), "s", "s-" + id, "u", uuid(id),
        "fixed", new byte[] {1, 2, 3, (byte) id}, "bin", ByteBuffer.wrap(new byte[] {(byte) id, 9}),
        "dec", new BigDecimal(id + ".125"));
  }

  private static UUID uuid(long id) {
    return new UUID(0x1234L, id);
  }

  private static Map<String, Object> values(Record record) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Types.NestedField field : record.struct().fields()) {
      values.put(field.name(), record.getField(field.name()));
    }
    return values;
  }

  /** byte arrays compared by content. */
  private static Map<String, Object> comparable(Map<String, Object> row) {
    Map<String, Object> values = new LinkedHashMap<>();
    row.forEach((k, v) -> values.put(k, v instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : v));
    return values;
  }

  private static Table iceberg(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    return iceberg;
  }

  private static FileScanTask task(FeatureTable table) throws Exception {
    try (CloseableIterable<FileScanTask> tasks = iceberg(table).newScan().planFiles()) {
      return tasks.iterator().next();
    }
  }

  private static FooterCache.Footer footer(FeatureTable table) throws Exception {
    return new FooterCache("id", 10).footer(iceberg(table), task(table).file());
  }
}
