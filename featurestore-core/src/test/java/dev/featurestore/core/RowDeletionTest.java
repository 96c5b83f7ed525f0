package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.DeleteResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.Row;
import dev.featurestore.Rows;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Row-level deletes through the API: by filter (the reads' NaN, null and uuid semantics, partitions,
 * evolved specs and schemas) and by keys (bloom-pruned), written as deletion vectors on format 3
 * and position deletes on format 2, one delete file per data file; every reader agrees with
 * Iceberg's own; a concurrent compaction fails the commit and leaves nothing behind.
 */
class RowDeletionTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "x", Types.DoubleType.get()),
      Types.NestedField.optional(3, "u", Types.UUIDType.get()),
      Types.NestedField.optional(4, "name", Types.StringType.get()),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()));

  @TempDir
  Path dir;

  FeatureStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  FeatureTable table(int formatVersion, TableDefinition.Builder definition) {
    store = FeatureStore.openLocal(dir.resolve("store"));
    return store.createTable(definition.formatVersion(formatVersion).build());
  }

  FeatureTable table(int formatVersion) {
    return table(formatVersion, TableDefinition.builder("t.rows", SCHEMA).bloomFilter("id", 1000));
  }

  static Map<String, Object> row(long id, Double x, UUID u, String name) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("x", x);
    row.put("u", u);
    row.put("name", name);
    row.put("ts", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(id * 3600));
    return row;
  }

  /** Ten rows per batch: ids from..from+9, NaN, null, high-bit uuids among them. */
  static List<Map<String, Object>> batch(long from) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = from; id < from + 10; id++) {
      Double x = id % 5 == 0 ? Double.valueOf(Double.NaN) : id % 5 == 1 ? null : Double.valueOf(id);
      UUID u = id % 3 == 0 ? null : new UUID(id % 2 == 0 ? Long.MIN_VALUE + id : id, id);
      rows.add(row(id, x, u, id % 4 == 0 ? null : "n" + id));
    }
    return rows;
  }

  static Set<Long> ids(FeatureTable table, Expression filter) {
    try (Rows rows = table.query().filter(filter).execute()) {
      Set<Long> ids = new TreeSet<>();
      for (Row row : rows) {
        ids.add((Long) row.get("id"));
      }
      return ids;
    }
  }

  static Set<Long> ids(FeatureTable table) {
    return ids(table, Expressions.alwaysTrue());
  }

  /** What Iceberg's own reader returns. */
  static Set<Long> icebergIds(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Set<Long> ids = new TreeSet<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(iceberg).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  /** Every reader of the table: query, count, lookup of each id, Iceberg's reader, all equal to {@code expected}. */
  static void everyReaderSees(FeatureTable table, Set<Long> expected, long maxId) {
    assertThat(ids(table)).as("query()").isEqualTo(expected);
    assertThat(icebergIds(table)).as("IcebergGenerics").isEqualTo(expected);
    assertThat(table.query().count()).as("count()").isEqualTo(expected.size());
    List<Long> all = new ArrayList<>();
    for (long id = 0; id <= maxId; id++) {
      all.add(id);
    }
    assertThat(new TreeSet<>(table.lookup("id").getAll(all).rows().keySet())).as("lookup()").isEqualTo(expected);
  }

  static Map<String, List<DeleteFile>> deletesByFile(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Map<String, List<DeleteFile>> deletes = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        deletes.put(task.file().location(), task.deletes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return deletes;
  }

  Set<String> filesOnDisk() {
    try (Stream<Path> files = Files.walk(dir.resolve("store"))) {
      return files.filter(Files::isRegularFile).map(Path::toString)
          .filter(p -> !p.endsWith("catalog.db") && !p.contains("catalog.db-")).collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void deleteByFilter_removesExactlyTheRowsTheQuerySelects(int formatVersion) {
    FeatureTable table = table(formatVersion);
    for (long from = 0; from < 40; from += 10) {
      table.append(batch(from));
    }
    List<Expression> filters = List.of(
        Expressions.greaterThan("x", 30.0),                       // NaN and null: not greater
        Expressions.isNaN("x"),
        Expressions.notEqual("x", 7.0),                           // SQL: null rows are not deleted
        Expressions.greaterThan("u", new UUID(0, 5)),             // unsigned: high-bit uuids are greater
        Expressions.isNull("name"));
    Set<Long> expected = ids(table);
    for (Expression filter : filters) {
      Set<Long> selected = ids(table, filter);
      DeleteResult result = table.deleteRows().where(filter).execute();
      expected.removeAll(selected);
      assertThat(result.rowsDeleted()).as(filter.toString()).isEqualTo(selected.size());
      everyReaderSees(table, expected, 39);
    }
    assertThat(expected).isNotEmpty();
    assertThat(deletesByFile(table).values()).allSatisfy(deletes ->
        assertThat(deletes).as("one delete file per data file").hasSizeLessThanOrEqualTo(1));
  }
}
