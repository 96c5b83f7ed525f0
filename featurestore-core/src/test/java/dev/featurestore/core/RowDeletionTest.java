package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.DeleteResult;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.Row;
import dev.featurestore.Rows;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Row-level deletes through the API: by filter (the reads' NaN, null and uuid semantics, partitions,
 * evolved specs and schemas) and by keys (bloom-pruned), written as deletion vectors on format 3
 * and position deletes on format 2, one delete file per data file; every reader agrees with
 * Iceberg's own; a concurrent compaction fails the commit and leaves nothing behind.
 */
class RowDeletionTest extends StoreTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "x", Types.DoubleType.get()),
      Types.NestedField.optional(3, "u", Types.UUIDType.get()),
      Types.NestedField.optional(4, "name", Types.StringType.get()),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()));


  FeatureTable table(int formatVersion, TableDefinition.Builder definition) {
    openLocalStore();
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

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void deleteByKeys_readsAndTouchesOnlyTheFilesTheBloomFiltersKeep(int formatVersion) {
    FeatureTable table = table(formatVersion);
    // file k holds k, k+20, ..., k+180: every file's id range covers key 100, only file 0 holds it
    for (long k = 0; k < 20; k++) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (long id = k; id < 200; id += 20) {
        rows.add(row(id, 1.0, null, "n"));
      }
      table.append(rows);
    }
    Map<String, List<DeleteFile>> before = deletesByFile(table);
    assertThat(before).hasSize(20);

    DeleteResult result = table.deleteRows().keys("id", List.of(100L)).execute();

    assertThat(result.rowsDeleted()).isEqualTo(1);
    assertThat(result.dataFilesScanned()).as("bloom filters keep one file of twenty").isEqualTo(1);
    assertThat(result.dataFilesTouched()).isEqualTo(1);
    assertThat(result.deleteFilesWritten()).isEqualTo(1);
    Map<String, List<DeleteFile>> after = deletesByFile(table);
    String touched = result.files().get(0).dataFile();
    assertThat(after.get(touched)).singleElement().satisfies(d ->
        assertThat(d.location()).endsWith(formatVersion == 3 ? ".puffin" : ".parquet"));
    after.forEach((file, deletes) -> {
      if (!file.equals(touched)) {
        assertThat(deletes).as("untouched file %s", file).isEmpty();
      }
    });
    Set<Long> expected = new TreeSet<>();
    for (long id = 0; id < 200; id++) {
      expected.add(id);
    }
    expected.remove(100L);
    everyReaderSees(table, expected, 199);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void repeatedDeletesOfOneFile_keepOneDeleteFileForIt(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(batch(0));
    Set<Long> expected = ids(table);
    for (long id : new long[] {3, 7, 8}) {
      DeleteResult result = table.deleteRows().keys("id", List.of(id)).execute();
      assertThat(result.deleteFilesWritten()).isEqualTo(1);
      assertThat(result.deleteFilesReplaced()).isEqualTo(id == 3 ? 0 : 1);
      expected.remove(id);
      assertThat(deletesByFile(table).values()).singleElement().satisfies(d -> assertThat(d).hasSize(1));
    }
    table.deleteRows().where(Expressions.equal("id", 3L)).execute(); // already gone: nothing to do
    everyReaderSees(table, expected, 9);
    assertThat(deletesByFile(table).values()).singleElement().satisfies(d -> {
      assertThat(d).hasSize(1);
      assertThat(d.get(0).recordCount()).isEqualTo(3);
    });
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void aFileWhoseLiveRowsAllMatch_isRemovedWithItsDeletes(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(batch(0));
    table.append(batch(10));
    table.deleteRows().keys("id", List.of(2L, 4L)).execute();

    DeleteResult result = table.deleteRows().where(Expressions.lessThan("id", 10L)).execute();

    assertThat(result.rowsDeleted()).isEqualTo(8);
    assertThat(result.dataFilesRemoved()).isEqualTo(1);
    assertThat(result.deleteFilesWritten()).isZero();
    assertThat(result.deleteFilesReplaced()).as("the removed file's own delete file").isEqualTo(1);
    assertThat(result.files()).singleElement().satisfies(f -> assertThat(f.wholeFile()).isTrue());
    assertThat(deletesByFile(table)).hasSize(1).allSatisfy((file, deletes) -> assertThat(deletes).isEmpty());
    everyReaderSees(table, new TreeSet<>(List.of(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L)), 19);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void partitionedTable_afterPartitionAndSchemaEvolution(int formatVersion) {
    FeatureTable table = table(formatVersion, TableDefinition.builder("t.rows", SCHEMA).bloomFilter("id", 1000)
        .partitionBy(s -> org.apache.iceberg.PartitionSpec.builderFor(s).day("ts").build()));
    table.append(batch(0));        // ids 0..9 over 10 hours of one day
    table.evolvePartitionSpec().bucket("id", 4).commit();
    table.append(batch(30));       // ids 30..39 on day 2: day x bucket
    table.evolveSchema().renameColumn("x", "score").addColumn("extra", Types.StringType.get()).commit();
    Map<String, Object> late = row(50, 50.0, null, "late");
    late.put("score", late.remove("x"));
    late.put("extra", "e");
    table.append(List.of(late));

    // a whole partition of the first spec goes without being read
    DeleteResult day1 = table.deleteRows().where(Expressions.lessThan("ts", Instant.parse("2026-01-01T10:00:00Z")
        .toString())).dryRun();
    assertThat(day1.rowsDeleted()).isEqualTo(10);
    assertThat(day1.dataFilesRemoved()).isEqualTo(1);

    Set<Long> expected = ids(table);
    for (Expression filter : List.of(
        Expressions.and(Expressions.greaterThan("score", 33.0), Expressions.lessThan("score", 45.0)), // renamed, old files
        Expressions.isNull("extra"),                       // the added column: null in every old file
        Expressions.equal("id", 5L))) {
      Set<Long> selected = ids(table, filter);
      assertThat(table.deleteRows().where(filter).execute().rowsDeleted()).as(filter.toString()).isEqualTo(selected.size());
      expected.removeAll(selected);
      everyReaderSees(table, expected, 50);
    }
    assertThat(expected).containsExactly(50L);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void dryRun_countsPerFileAndWritesNothing(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(batch(0));
    table.append(batch(10));
    long snapshot = table.snapshots().current().orElseThrow().snapshotId();
    Set<String> files = filesOnDisk();

    DeleteResult preview = table.deleteRows().where(Expressions.in("id", 1L, 2L, 15L)).dryRun();

    assertThat(preview.dryRun()).isTrue();
    assertThat(preview.snapshotId()).isEmpty();
    assertThat(preview.rowsDeleted()).isEqualTo(3);
    assertThat(preview.files()).extracting(DeleteResult.FileDeletion::rowsDeleted).containsExactlyInAnyOrder(2L, 1L);
    assertThat(preview.deleteFilesWritten()).isEqualTo(2);
    assertThat(filesOnDisk()).isEqualTo(files);
    assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(snapshot);
    assertThat(ids(table)).hasSize(20);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void concurrentCompaction_failsTheDeleteAndLeavesNothingBehind(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(batch(0));
    table.append(batch(10));
    Set<String> atCompaction = new TreeSet<>();
    long[] compacted = new long[1];
    RowDeletionOperation delete = (RowDeletionOperation) table.deleteRows().keys("id", List.of(3L, 13L));
    delete.beforeCommit(() -> {
      assertThat(table.maintenance().compact().minInputFiles(2).execute().rewrittenDataFiles()).isEqualTo(2);
      compacted[0] = table.snapshots().current().orElseThrow().snapshotId();
      atCompaction.addAll(filesOnDisk());
    });

    assertThatThrownBy(delete::execute).isExactlyInstanceOf(CommitConflictException.class)
        .hasMessageStartingWith("Cannot delete rows of table t.rows: a concurrent commit changed the same data files; "
            + "nothing was deleted, retry: ");

    assertThat(table.snapshots().current().orElseThrow().snapshotId()).as("the compaction's snapshot").isEqualTo(compacted[0]);
    Set<String> after = filesOnDisk();
    assertThat(after).as("no file of the failed commit is left").isSubsetOf(atCompaction);
    Set<String> removed = new TreeSet<>(atCompaction);
    removed.removeAll(after);
    assertThat(removed).as("the delete files written for it").isNotEmpty()
        .allSatisfy(f -> assertThat(f).contains("/data/"));
    assertThat(deletesByFile(table).values()).allSatisfy(d -> assertThat(d).isEmpty());
    everyReaderSees(table, ids(table), 19);
    assertThat(ids(table)).hasSize(20);
  }

  @Test
  void tableWithoutSnapshot_isANoOp() {
    FeatureTable table = table(3);
    DeleteResult result = table.deleteRows().where(Expressions.alwaysTrue()).execute();
    assertThat(result.snapshotId()).isEmpty();
    assertThat(result.rowsDeleted()).isZero();
    assertThat(table.deleteRows().keys("id", List.of(1L)).forget().snapshotId()).isEmpty();
    assertThat(table.snapshots().current()).isEmpty();
  }

  @Test
  void hostileInputs_failTypedWithExactMessages() {
    FeatureTable table = table(3);
    table.append(batch(0));
    assertThatThrownBy(() -> table.deleteRows().execute()).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows of table t.rows: nothing selected: set where(...) or keys(...): none");
    assertThatThrownBy(() -> table.deleteRows().keys("id", List.of())).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows of table t.rows: no key given: []");
    assertThatThrownBy(() -> table.deleteRows().keys("nope", List.of(1L))).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows of table t.rows: unknown key column: nope");
    assertThatThrownBy(() -> table.deleteRows().keys("x", List.of(Double.NaN))).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot delete rows of table t.rows: NaN equals no key (IEEE 754)");
    assertThatThrownBy(() -> table.deleteRows().keys("x", List.of("NaN")).execute()).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot delete rows of table t.rows: NaN equals no key (IEEE 754)");
    assertThatThrownBy(() -> table.deleteRows().keys("id", Arrays.asList(1L, null)))
        .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage("Cannot delete rows: key is null: null");
    assertThatThrownBy(() -> table.deleteRows().keys("id", List.of("abc")).execute())
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows of table t.rows: key does not convert to column id (long): abc");
    assertThatThrownBy(() -> table.deleteRows().where(Expressions.equal("nope", 1)).execute())
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot delete rows of table t.rows: Cannot find field 'nope'");
    assertThatThrownBy(() -> table.deleteRows().where(Expressions.equal("id", "abc")).dryRun())
        .isExactlyInstanceOf(InvalidArgumentException.class).hasMessageStartingWith("Cannot delete rows of table t.rows: ");
    assertThatThrownBy(() -> table.deleteRows().where(Expressions.alwaysTrue()).keys("id", List.of(1L)))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows of table t.rows: a filter or keys already given; give one selection: id");
    assertThatThrownBy(() -> table.deleteRows().where(null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot delete rows: filter is null: null");
    var once = table.deleteRows().keys("id", List.of(1L));
    once.dryRun();
    assertThatThrownBy(once::execute).isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute row deletion of table t.rows: already executed");
    assertThat(ids(table)).hasSize(10);
  }

  @Test
  void existingEqualityAndPartitionScopedDeletes_areAppliedWhenFindingRows() {
    FeatureTable table = table(2);
    table.append(batch(0));
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    DataFile first = iceberg.currentSnapshot().addedDataFiles(iceberg.io()).iterator().next();
    table.append(batch(10));
    iceberg.refresh();
    DataFile second = iceberg.currentSnapshot().addedDataFiles(iceberg.io()).iterator().next();
    TestTables.equalityDelete(table, "id", 3L);                                   // another engine's equality delete
    DeleteFile partitionScoped = TestTables.positionDeletes(table,                // and its partition-scoped position delete
        Map.of(first, List.of(1L), second, List.of(1L)));
    assertThat(ContentFileUtil.isFileScoped(partitionScoped)).as("spans two data files").isFalse();

    DeleteResult result = table.deleteRows().where(Expressions.lessThan("id", 5L)).execute();

    assertThat(result.rowsDeleted()).as("0, 2 and 4: 1 and 3 were already deleted").isEqualTo(3);
    assertThat(result.deleteFilesWritten()).isEqualTo(1);
    Set<Long> expected = new TreeSet<>(List.of(5L, 6L, 7L, 8L, 9L, 10L));
    for (long id = 12; id < 20; id++) {
      expected.add(id);
    }
    everyReaderSees(table, expected, 19);
  }

  @Test
  void commitStateUnknown_isTheApiTypeAndKeepsTheFiles() {
    FeatureTable table = table(3);
    table.append(batch(0));
    Set<String> before = filesOnDisk();
    RowDeletionOperation delete = (RowDeletionOperation) table.deleteRows().keys("id", List.of(4L));
    delete.beforeCommit(() -> {
      // Iceberg's exception of the same simple name as the API's: the catalog lost the answer
      throw new org.apache.iceberg.exceptions.CommitStateUnknownException(new RuntimeException("connection reset"));
    });

    assertThatThrownBy(delete::execute).isExactlyInstanceOf(CommitStateUnknownException.class)
        .hasMessageStartingWith("Cannot delete rows of table t.rows: commit outcome unknown, check the table before retrying: ");

    Set<String> after = filesOnDisk();
    after.removeAll(before);
    assertThat(after).as("the deletion vector may be committed: kept").singleElement()
        .satisfies(f -> assertThat(f).endsWith(".puffin"));
  }
}
