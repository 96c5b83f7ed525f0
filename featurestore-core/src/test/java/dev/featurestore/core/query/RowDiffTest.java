package dev.featurestore.core.query;

import static dev.featurestore.core.query.DiffTables.liveFiles;
import static dev.featurestore.core.query.DiffTables.minus;
import static dev.featurestore.core.query.DiffTables.multiset;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.QueryResult;
import dev.featurestore.ReadVersion;
import dev.featurestore.RowDiff;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.LocalStoreTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RowDiffTest extends LocalStoreTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "n", Types.IntegerType.get()));

  FeatureTable table(int formatVersion) {
    return store.createTable(TableDefinition.builder("diff.t" + formatVersion, SCHEMA).formatVersion(formatVersion).build());
  }

  static List<Map<String, Object>> rows(long from, long to) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      rows.add(Map.of("id", id, "name", "name-" + id, "n", (int) id));
    }
    return rows;
  }

  static Map<String, Object> row(long id) {
    return Map.of("id", id, "name", "name-" + id, "n", (int) id);
  }

  /** The diff's rows equal the multiset difference of full reads of both snapshots, counts included. */
  static void assertMatchesFullReads(FeatureTable table, long from, long to) {
    RowDiff diff = table.query().asOfSnapshot(to).diff(from);
    var before = multiset(table.query().asOfSnapshot(from).execute());
    var after = multiset(table.query().asOfSnapshot(to).execute());
    assertThat(multiset(diff.added())).isEqualTo(minus(after, before));
    assertThat(multiset(diff.removed())).isEqualTo(minus(before, after));
    assertThat(diff.addedCount()).isEqualTo(DiffTables.size(minus(after, before)));
    assertThat(diff.removedCount()).isEqualTo(DiffTables.size(minus(before, after)));
  }

  @Test
  void diff_ofAnAppend_isTheAppendedRows_andReadsOnlyTheNewFile() {
    FeatureTable table = table(2);
    table.append(rows(0, 10));
    long first = currentSnapshotId(table);
    List<String> before = liveFiles(table).stream().map(t -> t.file().location()).toList();
    table.append(rows(10, 13));

    RowDiff diff = table.query().diff(first);

    assertThat(diff.fromSnapshotId()).isEqualTo(first);
    assertThat(diff.toSnapshotId()).isEqualTo(currentSnapshotId(table));
    assertThat(diff.addedCount()).isEqualTo(3);
    assertThat(diff.removedCount()).isZero();
    assertThat(diff.changedDataFiles()).hasSize(1).doesNotContainAnyElementsOf(before);
    assertThat(multiset(diff.added())).isEqualTo(Map.of(row(10), 1, row(11), 1, row(12), 1));
    assertThat(multiset(diff.removed())).isEmpty();
    try (QueryResult added = diff.added()) {
      assertThat(added.snapshotId()).isEqualTo(diff.toSnapshotId());
      assertThat(added.toList()).hasSize(3);
      assertThat(added.scanStats().plannedDataFiles()).isEqualTo(1);
    }
  }

  @Test
  void diff_reversed_swapsAddedAndRemoved() {
    FeatureTable table = table(2);
    table.append(rows(0, 10));
    long first = currentSnapshotId(table);
    table.append(rows(10, 13));
    long second = currentSnapshotId(table);

    RowDiff back = table.query().asOfSnapshot(first).diff(second);

    assertThat(back.addedCount()).isZero();
    assertThat(multiset(back.removed())).isEqualTo(Map.of(row(10), 1, row(11), 1, row(12), 1));
  }

  @Test
  void positionDeletes_v2_areRemovedRows() {
    FeatureTable table = table(2);
    table.append(rows(0, 10));
    long first = currentSnapshotId(table);
    DataFile file = liveFiles(table).get(0).file();
    TestTables.positionDelete(table, file, 2, 5);

    RowDiff diff = table.query().diff(first);

    assertThat(diff.changedDataFiles()).containsExactly(file.location());
    assertThat(diff.addedCount()).isZero();
    assertThat(diff.removedCount()).isEqualTo(2);
    assertThat(multiset(diff.removed())).isEqualTo(Map.of(row(2), 1, row(5), 1));
    assertMatchesFullReads(table, first, currentSnapshotId(table));
  }

  @Test
  void deletionVectors_v3_areRemovedRows() {
    FeatureTable table = table(3);
    table.append(rows(0, 10));
    table.append(rows(10, 20));
    long first = currentSnapshotId(table);
    FileScanTask task = liveFiles(table).stream().filter(t -> t.file().recordCount() == 10).findFirst().orElseThrow();
    DiffTables.deletionVector(table, task.file(), 0, 9);

    RowDiff diff = table.query().diff(first);

    assertThat(liveFiles(table)).anySatisfy(t -> assertThat(t.deletes()).singleElement()
        .satisfies(d -> assertThat(d.format().name()).isEqualTo("PUFFIN")));
    assertThat(diff.changedDataFiles()).containsExactly(task.file().location());
    assertThat(diff.removedCount()).isEqualTo(2);
    assertThat(diff.addedCount()).isZero();
    assertMatchesFullReads(table, first, currentSnapshotId(table));
  }

  @Test
  void equalityDeletes_areRemovedRows_inEveryFileTheyApplyTo() {
    FeatureTable table = table(2);
    table.append(rows(0, 5));
    table.append(List.of(row(3), row(7)));
    long first = currentSnapshotId(table);
    TestTables.equalityDelete(table, "id", 3L);

    RowDiff diff = table.query().diff(first);

    assertThat(diff.changedDataFiles()).hasSize(2);
    assertThat(diff.removedCount()).isEqualTo(2);
    assertThat(multiset(diff.removed())).isEqualTo(Map.of(row(3), 2));
    assertMatchesFullReads(table, first, currentSnapshotId(table));
  }

  @Test
  void copyOnWriteOverwrite_removesAndAddsOnlyTheRowsThatChanged() {
    FeatureTable table = table(2);
    table.append(rows(0, 10));
    long first = currentSnapshotId(table);
    FileScanTask task = liveFiles(table).get(0);
    List<Record> kept = new ArrayList<>(DiffTables.liveRows(table, task));
    kept.remove(4); // id 4 goes
    kept.get(0).setField("name", "renamed"); // id 0 changes
    DiffTables.overwrite(table, task.file(), kept);

    RowDiff diff = table.query().diff(first);

    assertThat(diff.changedDataFiles()).hasSize(2);
    assertThat(diff.removedCount()).isEqualTo(2);
    assertThat(diff.addedCount()).isEqualTo(1);
    assertThat(multiset(diff.added())).isEqualTo(Map.of(Map.of("id", 0L, "name", "renamed", "n", 0), 1));
    assertThat(multiset(diff.removed())).isEqualTo(Map.of(row(0), 1, row(4), 1));
  }

  @Test
  void compaction_isAnEmptyDiff_andACompactionInARangeCancels() {
    FeatureTable table = table(2);
    for (int i = 0; i < 4; i++) {
      table.append(rows(i * 5, i * 5 + 5));
    }
    TestTables.positionDelete(table, liveFiles(table).get(0).file(), 1);
    long beforeCompaction = currentSnapshotId(table);
    table.maintenance().compact().execute();
    long compacted = currentSnapshotId(table);
    assertThat(compacted).isNotEqualTo(beforeCompaction);

    RowDiff rewrite = table.query().diff(beforeCompaction);
    assertThat(rewrite.addedCount()).isZero();
    assertThat(rewrite.removedCount()).isZero();
    assertThat(rewrite.changedDataFiles()).isEmpty(); // known equal from metadata: nothing read

    table.append(rows(100, 102));
    long third = currentSnapshotId(table);
    TestTables.positionDelete(table, liveFiles(table).stream()
        .filter(t -> t.file().recordCount() > 2).findFirst().orElseThrow().file(), 0);
    // a range holding a compaction, an append and a delete: the rewritten rows cancel by content
    RowDiff range = table.query().diff(beforeCompaction);
    assertThat(range.changedDataFiles()).isNotEmpty();
    assertThat(range.addedCount()).isEqualTo(2);
    assertThat(range.removedCount()).isEqualTo(1);
    assertMatchesFullReads(table, beforeCompaction, currentSnapshotId(table));
    assertMatchesFullReads(table, third, currentSnapshotId(table));
  }

  @Test
  void duplicates_countWithMultiplicity() {
    FeatureTable table = table(2);
    table.append(List.of(row(1), row(1)));
    long first = currentSnapshotId(table);
    table.append(List.of(row(1)));
    DataFile original = liveFiles(table).stream().filter(t -> t.file().recordCount() == 2).findFirst().orElseThrow().file();
    TestTables.positionDelete(table, original, 0, 1);

    RowDiff diff = table.query().diff(first);

    // two copies of row 1 deleted, one added: one copy removed
    assertThat(diff.addedCount()).isZero();
    assertThat(diff.removedCount()).isEqualTo(1);
    assertThat(multiset(diff.removed())).isEqualTo(Map.of(row(1), 1));
  }

  @Test
  void schemaEvolution_bothSidesReadThroughTheNewerSchema() {
    FeatureTable table = table(2);
    table.append(rows(0, 3));
    long first = currentSnapshotId(table);
    table.evolveSchema()
        .renameColumn("name", "label")
        .widenColumn("n", Types.LongType.get())
        .addColumn("extra", Types.StringType.get())
        .commit();
    table.append(List.of(Map.of("id", 9L, "label", "nine", "n", 9L, "extra", "x")));
    long second = currentSnapshotId(table);

    RowDiff forward = table.query().asOfSnapshot(second).diff(first);
    RowDiff backward = table.query().asOfSnapshot(first).diff(second);

    for (RowDiff diff : List.of(forward, backward)) {
      assertThat(diff.schema().columns()).extracting(Types.NestedField::name).containsExactly("id", "label", "n", "extra");
      assertThat(diff.schema().findType("n")).isEqualTo(Types.LongType.get());
    }
    assertThat(forward.removedCount()).isZero();
    assertThat(forward.addedCount()).isEqualTo(1);
    Map<String, Object> nine = new java.util.LinkedHashMap<>();
    nine.put("id", 9L);
    nine.put("label", "nine");
    nine.put("n", 9L);
    nine.put("extra", "x");
    assertThat(multiset(forward.added())).isEqualTo(Map.of(nine, 1));
    assertThat(multiset(backward.removed())).isEqualTo(Map.of(nine, 1));
  }

  @Test
  void selectAndFilter_applyToBothSides() {
    FeatureTable table = table(2);
    table.append(rows(0, 10));
    long first = currentSnapshotId(table);
    TestTables.positionDelete(table, liveFiles(table).get(0).file(), 1, 8);
    table.append(rows(20, 22));

    RowDiff diff = table.query().select("id").filter(Expressions.lessThan("id", 5L)).diff(first);

    assertThat(diff.schema().columns()).extracting(Types.NestedField::name).containsExactly("id");
    assertThat(diff.addedCount()).isZero();
    assertThat(multiset(diff.removed())).isEqualTo(Map.of(Map.of("id", 1L), 1));
  }

  @Test
  void incrementalRead_fromTheLastProcessedSnapshot_seesOverwritesAndDeletes() {
    FeatureTable table = table(2);
    table.append(rows(0, 4));
    long processed = currentSnapshotId(table);
    FileScanTask task = liveFiles(table).get(0);
    List<Record> rewritten = new ArrayList<>(DiffTables.liveRows(table, task));
    rewritten.remove(0);
    DiffTables.overwrite(table, task.file(), rewritten);
    table.append(rows(4, 5));

    RowDiff changes = table.query().diff(ReadVersion.snapshot(processed));
    assertThat(multiset(changes.added())).isEqualTo(Map.of(row(4), 1));
    assertThat(multiset(changes.removed())).isEqualTo(Map.of(row(0), 1));

    RowDiff next = table.query().diff(changes.toSnapshotId());
    assertThat(next.addedCount()).isZero();
    assertThat(next.removedCount()).isZero();
    assertThat(next.changedDataFiles()).isEmpty();
  }

  @Test
  void diff_fromUnknownSnapshot_fails() {
    FeatureTable table = table(2);
    table.append(rows(0, 1));
    assertThatThrownBy(() -> table.query().diff(12345L))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table diff.t2: unknown snapshot id: 12345");
    assertThatThrownBy(() -> table.query().diff((ReadVersion) null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot diff table: from is null: null");
    assertThatThrownBy(() -> table.query().select("nope").diff(currentSnapshotId(table)))
        .isInstanceOf(NotFoundException.class);
  }
}
