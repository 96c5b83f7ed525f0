package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ParquetInput;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scan reader on merge-on-read tables (deletion vectors on format 3, position-delete files on
 * format 2): after appends, updates (delete by key, append the new version), deletes, a compaction
 * and deletes after it, every query (whole rows, a projection with a filter that prunes row
 * groups, a count, point lookups of every id ever written) returns exactly the rows of an
 * independent model, and every column (all primitive types, with nulls) as Iceberg's own reader
 * reads it. Files have many small row groups, so positions are counted across pruned groups.
 */
class MergeOnReadScanTest extends StoreTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "version", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "x", Types.DoubleType.get()),
      // more types, compared with Iceberg's reader (a deleted row is stepped over column by column)
      Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(6, "n", Types.IntegerType.get()),
      Types.NestedField.optional(7, "day", Types.DateType.get()),
      Types.NestedField.optional(8, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(9, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(10, "u", Types.UUIDType.get()),
      Types.NestedField.optional(11, "f", Types.FloatType.get()));

  /** The columns the model holds. */
  static final List<String> MODEL_COLUMNS = List.of("id", "version", "name", "x");


  /** The model's row. */
  static Map<String, Object> row(long id, long version) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("version", version);
    row.put("name", id % 7 == 0 ? null : "n" + id + "-" + version);
    row.put("x", id % 5 == 0 ? null : id * 0.5 + version);
    return row;
  }

  /** The row written: the model's columns and the others. */
  static Map<String, Object> written(long id, long version) {
    Map<String, Object> row = row(id, version);
    boolean nulls = (id + version) % 6 == 0;
    row.put("flag", nulls ? null : id % 2 == 0);
    row.put("n", nulls ? null : (int) (id * 3 + version));
    row.put("day", nulls ? null : java.time.LocalDate.of(2026, 1, 1).plusDays(id % 300));
    row.put("ts", nulls ? null : java.time.Instant.parse("2026-01-01T00:00:00Z").plusSeconds(id * 61 + version));
    row.put("amount", nulls ? null : java.math.BigDecimal.valueOf(id * 100 + version, 2));
    row.put("u", nulls ? null : new java.util.UUID(id, version));
    row.put("f", nulls ? null : (float) id / 4);
    return row;
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void queriesAndLookups_afterUpdatesDeletesAndCompaction_matchTheModel(int formatVersion) {
    openLocalStore();
    FeatureTable table = store.createTable(TableDefinition.builder("t.mor", SCHEMA).formatVersion(formatVersion)
        // small row groups: a file has many, and a filter on id prunes some
        .property("write.parquet.row-group-size-bytes", "2048")
        .property("write.parquet.row-group-check-min-record-count", "20")
        .property("write.parquet.row-group-check-max-record-count", "20")
        .build());
    Map<Long, Map<String, Object>> model = new TreeMap<>();
    for (long from = 0; from < 1_200; from += 200) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (long id = from; id < from + 200; id++) {
        rows.add(written(id, 0));
        model.put(id, row(id, 0));
      }
      table.append(rows);
    }
    assertThat(rowGroups(table)).as("row groups of a data file").isGreaterThanOrEqualTo(3);
    check(table, model);

    Random random = new Random(formatVersion);
    boolean sawSharedPuffin = false;
    boolean sawDeletes = false;
    for (int round = 1; round <= 8; round++) {
      // updates: the old versions deleted by key, the new versions appended
      List<Long> updated = pick(random, model, 60);
      table.deleteRows().keys("id", updated).execute();
      List<Map<String, Object>> versions = new ArrayList<>();
      for (long id : updated) {
        versions.add(written(id, round));
        model.put(id, row(id, round));
      }
      table.append(versions);
      // deletes, some of them of rows updated just now
      List<Long> deleted = pick(random, model, 25);
      table.deleteRows().keys("id", deleted).execute();
      deleted.forEach(model::remove);
      Table iceberg = table.unwrap(Table.class);
      iceberg.refresh();
      sawDeletes |= tasks(iceberg).stream().anyMatch(t -> !t.deletes().isEmpty());
      sawSharedPuffin |= sharedPuffin(iceberg);
      check(table, model);
      if (round == 4) {
        table.maintenance().compact().execute();
        iceberg.refresh();
        assertThat(tasks(iceberg)).as("compacted").allMatch(t -> t.deletes().isEmpty());
        check(table, model);
      }
    }
    assertThat(sawDeletes).as("data files with deletes were read").isTrue();
    if (formatVersion >= 3) {
      assertThat(sawSharedPuffin).as("one Puffin file held the vectors of several data files").isTrue();
    }
  }

  private static List<Long> pick(Random random, Map<Long, Map<String, Object>> model, int n) {
    List<Long> live = new ArrayList<>(model.keySet());
    Set<Long> picked = new HashSet<>();
    while (picked.size() < Math.min(n, live.size())) {
      picked.add(live.get(random.nextInt(live.size())));
    }
    return new ArrayList<>(picked);
  }

  private void check(FeatureTable table, Map<Long, Map<String, Object>> model) {
    Map<Long, Map<String, Object>> all = query(table, Expressions.alwaysTrue(), null);
    assertThat(modelColumns(all)).as("all rows").isEqualTo(model);
    assertThat(all).as("every column as Iceberg's reader reads it").isEqualTo(icebergRows(table));
    assertThat(table.query().count()).as("count").isEqualTo(model.size());
    List<Object> keys = new ArrayList<>();
    for (long id = 0; id < 1_200; id++) {
      keys.add(id);
    }
    Map<Long, Map<String, Object>> found = new TreeMap<>();
    table.lookup("id").getAll(keys).rows().forEach((key, row) -> found.put((Long) key, row));
    assertThat(modelColumns(found)).as("point lookups").isEqualTo(model);
    // a projection with a filter that prunes row groups (files are written in id order)
    Expression filter = Expressions.and(Expressions.greaterThanOrEqual("id", 430L), Expressions.lessThan("id", 910L));
    Map<Long, Map<String, Object>> expected = new TreeMap<>();
    model.forEach((id, row) -> {
      if (id >= 430 && id < 910) {
        Map<String, Object> projected = new LinkedHashMap<>();
        projected.put("version", row.get("version"));
        projected.put("id", id);
        expected.put(id, projected);
      }
    });
    assertThat(query(table, filter, new String[] {"version", "id"})).as("filtered projection").isEqualTo(expected);
    Predicate<Map<String, Object>> named = row -> row.get("name") != null && ((String) row.get("name")).startsWith("n1");
    Map<Long, Map<String, Object>> startsWith = new TreeMap<>();
    model.forEach((id, row) -> {
      if (named.test(row)) {
        startsWith.put(id, row);
      }
    });
    assertThat(modelColumns(query(table, Expressions.startsWith("name", "n1"), null))).as("string filter")
        .isEqualTo(startsWith);
  }

  private static Map<Long, Map<String, Object>> modelColumns(Map<Long, Map<String, Object>> rows) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    rows.forEach((id, row) -> {
      Map<String, Object> kept = new LinkedHashMap<>();
      MODEL_COLUMNS.forEach(c -> kept.put(c, row.get(c)));
      out.put(id, kept);
    });
    return out;
  }

  private static Map<Long, Map<String, Object>> query(FeatureTable table, Expression filter, String[] columns) {
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    var query = table.query().filter(filter);
    if (columns != null) {
      query = query.select(columns);
    }
    try (QueryResult result = query.execute()) {
      for (Row row : result) {
        Map<String, Object> values = row.toMap();
        assertThat(rows.put((Long) values.get("id"), values)).as("duplicate id " + values.get("id")).isNull();
      }
    }
    return rows;
  }

  private static Map<Long, Map<String, Object>> icebergRows(FeatureTable table) {
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).build()) {
      for (Record record : records) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Types.NestedField field : SCHEMA.columns()) {
          values.put(field.name(), record.getField(field.name()));
        }
        rows.put((Long) values.get("id"), values);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static List<FileScanTask> tasks(Table table) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  /** Whether one Puffin file holds the live vectors of at least two data files. */
  private static boolean sharedPuffin(Table table) {
    Map<String, Integer> vectors = new HashMap<>();
    for (FileScanTask task : tasks(table)) {
      for (DeleteFile delete : task.deletes()) {
        if (ContentFileUtil.isDV(delete)) {
          vectors.merge(delete.location(), 1, Integer::sum);
        }
      }
    }
    return vectors.values().stream().anyMatch(n -> n >= 2);
  }

  private static int rowGroups(FeatureTable table) {
    FileScanTask task = tasks(table.unwrap(Table.class)).get(0);
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(
        table.unwrap(Table.class).io().newInputFile(task.file().location())))) {
      return reader.getRowGroups().size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
