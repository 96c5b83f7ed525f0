package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static dev.featurestore.core.maintenance.MaintenanceTestData.liveDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.Compaction;
import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CompactionTest extends LocalStoreTest {
  private FeatureTable events;

  private List<Long> ids(FeatureTable table) {
    List<Long> ids = new ArrayList<>();
    try (QueryResult result = table.query().select("entity_id").execute()) {
      for (Row row : result) {
        ids.add(((Number) row.get("entity_id")).longValue());
      }
    }
    ids.sort(Long::compare);
    return ids;
  }

  private List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long i = from; i < to; i++) {
      ids.add(i);
    }
    return ids;
  }

  private long filesOnDisk() throws Exception {
    try (Stream<Path> files = Files.walk(Path.of(events.location(), "data"))) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void compact_smallFiles_binPacksIntoOneFileInOneCommit() {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 10; i++) {
      appendRows(events, i * 100L, 100);
    }
    long before = TestTables.currentSnapshotId(events);

    Compaction compaction = events.maintenance().compact();
    CompactionResult result = compaction.execute();
    assertThatThrownBy(compaction::execute)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute compaction of table " + events.id() + ": already executed");

    assertThat(result.rewrittenDataFiles()).isEqualTo(10);
    assertThat(result.addedDataFiles()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(1000);
    assertThat(result.partitions()).isEqualTo(1);
    assertThat(result.snapshotId()).isPresent();
    var snapshot = events.snapshots().snapshot(result.snapshotId().getAsLong());
    assertThat(snapshot.operation()).isEqualTo("replace");
    assertThat(snapshot.parentId()).hasValue(before);
    assertThat(liveDataFiles(events)).hasSize(1);
    assertThat(ids(events)).isEqualTo(range(0, 1000));
  }

  @Test
  void compact_partitionedTable_compactsEachPartitionSeparately() {
    events = TestTables.createEvents(store, true);
    for (int i = 0; i < 3; i++) {
      appendRows(events, i * 10L, 10, "2026-01-01T10:00:00Z");
      appendRows(events, 100 + i * 10L, 10, "2026-01-02T10:00:00Z");
    }
    appendRows(events, 500, 10, "2026-01-03T10:00:00Z"); // a single file: left alone

    CompactionResult result = events.maintenance().compact().execute();

    assertThat(result.partitions()).isEqualTo(2);
    assertThat(result.rewrittenDataFiles()).isEqualTo(6);
    assertThat(result.addedDataFiles()).isEqualTo(2);
    assertThat(liveDataFiles(events)).hasSize(3);
    assertThat(events.query().count()).isEqualTo(70);
  }

  @Test
  void compact_appliesPositionAndEqualityDeletes_andDropsDeleteFiles() {
    events = TestTables.createEvents(store, false);
    DataFile first = appendRows(events, 0, 10).get(0);
    appendRows(events, 10, 10);
    TestTables.positionDelete(events, first, 0, 1, 2);      // ids 0,1,2
    TestTables.equalityDelete(events, "entity_id", 15L, 16L); // ids 15,16

    CompactionResult result = events.maintenance().compact().execute();

    assertThat(result.rows()).isEqualTo(15);
    assertThat(result.removedDeleteFiles()).isEqualTo(2);
    assertThat(liveDataFiles(events)).hasSize(1); // one data file, no delete file
    List<Long> expected = range(3, 20);
    expected.removeAll(List.of(15L, 16L));
    assertThat(ids(events)).isEqualTo(expected);

    ExpireResult expired = events.maintenance().expireSnapshots().retainLast(1).execute();
    assertThat(expired.deletedDeleteFiles()).isEqualTo(2);
    assertThat(expired.deletedDataFiles()).isEqualTo(2);
    assertThat(ids(events)).isEqualTo(expected);
  }

  @Test
  void compact_withSortOrder_writesSortedRows() {
    events = TestTables.createEvents(store, false);
    appendRows(events, 50, 50);
    appendRows(events, 0, 50);
    Table table = events.unwrap(Table.class);

    events.maintenance().compact().sortBy(SortOrder.builderFor(table.schema()).desc("entity_id").build()).execute();

    List<Long> ids = new ArrayList<>();
    try (QueryResult result = events.query().select("entity_id").execute()) {
      result.forEach(row -> ids.add(((Number) row.get("entity_id")).longValue()));
    }
    List<Long> expected = range(0, 100);
    expected.sort((a, b) -> Long.compare(b, a));
    assertThat(ids).isEqualTo(expected);
  }

  @Test
  void compact_smallTargetSize_rollsToSeveralFiles() {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 10; i++) {
      appendRows(events, i * 500L, 500);
    }

    CompactionResult result = events.maintenance().compact()
        .targetFileSizeBytes(4_000).smallFileThresholdBytes(1_000_000).execute();

    assertThat(result.addedDataFiles()).isGreaterThan(1);
    assertThat(events.query().count()).isEqualTo(5000);
  }

  @Test
  void compact_targetFromTableProperty() {
    events = store.createTable(dev.featurestore.TableDefinition.builder(
            dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema())
        .property(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "0").build());
    appendRows(events, 0, 10);
    appendRows(events, 10, 10);

    assertThatThrownBy(() -> events.maintenance().compact().execute())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compact: target file size must be positive: 0");
  }

  @Test
  void compact_targetFileSizeZero_fails() {
    events = TestTables.createEvents(store, false);

    assertThatThrownBy(() -> events.maintenance().compact().targetFileSizeBytes(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compact: target file size must be positive: 0");
  }

  @Test
  void compact_nothingToDo_makesNoCommit() {
    events = TestTables.createEvents(store, false);
    assertThat(events.maintenance().compact().execute()).isEqualTo(CompactionResult.nothingToDo());
    appendRows(events, 0, 10);
    long before = TestTables.currentSnapshotId(events);

    CompactionResult result = events.maintenance().compact().execute();

    assertThat(result.snapshotId()).isEmpty();
    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(before);
  }

  @Test
  void compact_appendCommittedDuringCompaction_survives() {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 5; i++) {
      appendRows(events, i * 10L, 10);
    }
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact();
    compaction.beforeCommit = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        appendRows(other.table(events.id()), 1000, 10);
      }
    };

    CompactionResult result = compaction.execute();

    assertThat(result.rewrittenDataFiles()).isEqualTo(5);
    assertThat(ids(events)).containsAll(range(1000, 1010)).hasSize(60);
    assertThat(liveDataFiles(events)).hasSize(2).allMatch(MaintenanceTestData::exists);
  }

  @Test
  void compact_conflictingDeleteDuringCompaction_failsCleanlyAndLeavesNoFiles() throws Exception {
    events = TestTables.createEvents(store, false);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      files.addAll(appendRows(events, i * 10L, 10));
    }
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact();
    long[] snapshotBefore = new long[1];
    long[] filesBefore = new long[1];
    compaction.beforeCommit = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        // one position-delete file for two data files (as other engines write them): not carried over
        TestTables.positionDeletes(other.table(events.id()), Map.of(files.get(0), List.of(0L), files.get(1), List.of(0L)));
        snapshotBefore[0] = TestTables.currentSnapshotId(other.table(events.id()));
      }
      try {
        filesBefore[0] = filesOnDisk();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };

    assertThatThrownBy(compaction::execute)
        .isInstanceOf(CommitConflictException.class)
        .hasMessageStartingWith("Cannot compact table features.feature_events: a concurrent commit conflicts: "
            + "cannot carry its deletes over: snapshot " + snapshotBefore[0]
            + " added position deletes not scoped to one data file: ");

    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(snapshotBefore[0]);
    assertThat(filesOnDisk()).isEqualTo(filesBefore[0] - 1); // only the compaction's output is gone
    assertThat(liveDataFiles(events)).hasSize(5 + 5).allMatch(MaintenanceTestData::exists); // each file lists the delete file
    assertThat(events.query().count()).isEqualTo(48);
  }

  /**
   * Rows deleted while the compaction rewrote their files (the deletes a stream commits) are
   * carried over to the new files in the compaction's own commit: it lands, and every delete
   * before, during and after the rewrite holds, on format 2 (position-delete files) and 3
   * (deletion vectors).
   */
  @ParameterizedTest(name = "format {0}")
  @ValueSource(ints = {2, 3})
  void compact_deletesCommittedDuringTheRewrite_areCarriedOver(int format) throws Exception {
    events = store.createTable(dev.featurestore.TableDefinition.builder(
        dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema()).formatVersion(format).build());
    for (int i = 0; i < 6; i++) {
      appendRows(events, i * 10L, 10);
    }
    deleteIds(events, 3, 14, 15); // before: not copied
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact();
    compaction.beforeCommit = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        // during: one row of a file that already had a delete (its vector grows), rows of files that had none
        deleteIds(other.table(events.id()), 7, 20, 59);
        deleteIds(other.table(events.id()), 21);
      }
    };

    CompactionResult result = compaction.execute();

    assertThat(result.carriedDeletes()).isEqualTo(4);
    assertThat(result.rewrittenDataFiles()).isEqualTo(6);
    assertThat(result.addedDataFiles()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(57);
    List<Long> expected = range(0, 60);
    expected.removeAll(List.of(3L, 14L, 15L, 7L, 20L, 59L, 21L));
    assertThat(ids(events)).isEqualTo(expected);
    assertThat(liveDataFiles(events)).hasSize(1 + 1).allMatch(MaintenanceTestData::exists); // the file and its carried deletes
    Table table = events.unwrap(Table.class);
    table.refresh();
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        assertThat(task.deletes()).hasSize(1).allMatch(d -> d.content() == org.apache.iceberg.FileContent.POSITION_DELETES
            && d.recordCount() == 4 && (format == 3) == (d.format() == org.apache.iceberg.FileFormat.PUFFIN));
      }
    }
    deleteIds(events, 30); // after: a writer's next delete merges with the carried one
    expected.remove(30L);
    assertThat(ids(events)).isEqualTo(expected);
    assertThat(events.maintenance().compact().execute().carriedDeletes()).isZero();
    assertThat(ids(events)).isEqualTo(expected);
  }

  @Test
  void compact_commitFromAnotherStoreAfterTheCarryOver_failsCleanly_andLeavesTheTableAsItWas() throws Exception {
    events = store.createTable(dev.featurestore.TableDefinition.builder(
        dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema()).formatVersion(3).build());
    for (int i = 0; i < 4; i++) {
      appendRows(events, i * 10L, 10);
    }
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact();
    long[] snapshotBefore = new long[1];
    long[] filesBefore = new long[1];
    compaction.beforeCommit = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        deleteIds(other.table(events.id()), 5); // carried
      }
    };
    compaction.beforeCarriedCommit = () -> {
      // after the last walk, under this store's lock: another store (not bound by it) deletes a row
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        deleteIds(other.table(events.id()), 25);
        snapshotBefore[0] = TestTables.currentSnapshotId(other.table(events.id()));
        filesBefore[0] = filesOnDisk();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };

    assertThatThrownBy(compaction::execute)
        .isInstanceOf(CommitConflictException.class)
        .hasMessageStartingWith("Cannot compact table features.feature_events: a concurrent commit conflicts: ");

    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(snapshotBefore[0]);
    assertThat(filesOnDisk()).isEqualTo(filesBefore[0] - 1); // the compaction's data file and its carried vector are gone
    assertThat(unreferencedMetadataFiles(events.unwrap(Table.class))).isEmpty(); // and its prepared manifests
    assertThat(liveDataFiles(events)).hasSize(4 + 2); // two of them with a vector
    List<Long> expected = range(0, 40);
    expected.removeAll(List.of(5L, 25L));
    assertThat(ids(events)).isEqualTo(expected);
  }

  /**
   * The commit is prepared before the commit lock is taken. Deletes committed between the
   * preparation and the lock are carried over too, whether they replace the deletion vector the
   * prepared rewrite names for removal (it is rebuilt under the lock) or add a vector to a file that
   * had none (the prepared rewrite commits; that vector is removed right after): the rows are
   * right, no delete file is left pointing at a removed file, and no file of the preparation is left.
   */
  @ParameterizedTest(name = "named vector replaced: {0}")
  @ValueSource(booleans = {true, false})
  void compact_deletesCommittedAfterThePreparation_areCarriedOver_andNothingIsLeftBehind(boolean replaceNamed)
      throws Exception {
    events = store.createTable(dev.featurestore.TableDefinition.builder(
        dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema()).formatVersion(3).build());
    for (int i = 0; i < 6; i++) {
      appendRows(events, i * 10L, 10);
    }
    deleteIds(events, 3, 14); // vectors on the first two files, in one manifest
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact();
    compaction.beforeCommit = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        deleteIds(other.table(events.id()), 25); // carried, walked before the preparation
      }
    };
    compaction.afterPrepare = () -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        if (replaceNamed) {
          deleteIds(other.table(events.id()), 4, 15); // replaces the vectors of both first files
        } else {
          deleteIds(other.table(events.id()), 36); // a vector on a file that had none
        }
      }
    };

    CompactionResult result = compaction.execute();

    assertThat(result.carriedDeletes()).isEqualTo(replaceNamed ? 3 : 2);
    assertThat(result.rewrittenDataFiles()).isEqualTo(6);
    List<Long> expected = range(0, 60);
    expected.removeAll(List.of(3L, 14L, 25L));
    expected.removeAll(replaceNamed ? List.of(4L, 15L) : List.of(36L));
    assertThat(ids(events)).isEqualTo(expected);
    assertThat(liveDataFiles(events)).hasSize(1 + 1).allMatch(MaintenanceTestData::exists); // the file and its carried vector
    Table table = events.unwrap(Table.class);
    table.refresh();
    assertThat(deleteFilesOfRemovedDataFiles(table)).isEmpty();
    assertThat(result.removedDeleteFiles()).isEqualTo(replaceNamed ? 3 : 4); // the vectors of the files that had one
    assertThat(unreferencedMetadataFiles(table)).isEmpty();
  }

  /** Live delete files of the current snapshot pointing at a data file that is not in it. */
  private static List<String> deleteFilesOfRemovedDataFiles(Table table) throws Exception {
    java.util.Set<String> live = new java.util.HashSet<>();
    try (var tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> live.add(t.file().location()));
    }
    List<String> dangling = new ArrayList<>();
    for (org.apache.iceberg.ManifestFile m : table.currentSnapshot().deleteManifests(table.io())) {
      try (var reader = org.apache.iceberg.ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
        for (org.apache.iceberg.DeleteFile d : reader) {
          String target = org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(d);
          if (target != null && !live.contains(target)) {
            dangling.add(d.location() + " -> " + target);
          }
        }
      }
    }
    return dangling;
  }

  /** Manifests and manifest lists under the table's metadata directory that no snapshot lists. */
  private static List<String> unreferencedMetadataFiles(Table table) throws Exception {
    java.util.Set<String> referenced = new java.util.HashSet<>();
    for (org.apache.iceberg.Snapshot s : table.snapshots()) {
      referenced.add(Path.of(java.net.URI.create(asUri(s.manifestListLocation()))).toString());
      for (org.apache.iceberg.ManifestFile m : s.allManifests(table.io())) {
        referenced.add(Path.of(java.net.URI.create(asUri(m.path()))).toString());
      }
    }
    try (Stream<Path> files = Files.walk(Path.of(java.net.URI.create(asUri(table.location()))).resolve("metadata"))) {
      return files.filter(Files::isRegularFile).map(Path::toString)
          .filter(f -> f.endsWith(".avro") && !referenced.contains(f)).toList();
    }
  }

  private static String asUri(String location) {
    return location.startsWith("/") ? "file://" + location : location;
  }

  private static void deleteIds(FeatureTable table, long... ids) {
    List<Long> keys = new ArrayList<>();
    for (long id : ids) {
      keys.add(id);
    }
    table.deleteRows().keys("entity_id", keys).execute();
  }

  @Test
  void compact_v3_countsEachDeletionVector_evenWhenTheyShareOnePuffinFile() throws Exception {
    events = store.createTable(dev.featurestore.TableDefinition.builder("features.dv_events",
        dev.featurestore.SyntheticFeatures.schema()).formatVersion(3).build());
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      files.addAll(appendRows(events, i * 10, 10));
    }
    Table table = events.unwrap(Table.class);
    table.refresh();
    org.apache.iceberg.io.OutputFileFactory outputs = org.apache.iceberg.io.OutputFileFactory.builderFor(table, 9, 99)
        .format(org.apache.iceberg.FileFormat.PUFFIN).build();
    org.apache.iceberg.deletes.BaseDVFileWriter writer = new org.apache.iceberg.deletes.BaseDVFileWriter(outputs, path -> null);
    try (writer) {
      for (DataFile file : files) {
        writer.delete(file.location(), 0, table.spec(), null);
      }
    }
    org.apache.iceberg.RowDelta delta = table.newRowDelta();
    writer.result().deleteFiles().forEach(delta::addDeletes);
    delta.commit();
    assertThat(writer.result().deleteFiles()).hasSize(7);
    assertThat(writer.result().deleteFiles().stream().map(f -> f.location()).distinct()).hasSize(1);
    events.refresh();

    CompactionResult result = events.maintenance().compact().execute();

    assertThat(result.rows()).isEqualTo(63);
    assertThat(result.removedDeleteFiles()).isEqualTo(7);
    assertThat(events.query().count()).isEqualTo(63);
  }

  /** Two 20-row files in a v3 table: A with 1 row deleted (5%), B with 6 (30%). */
  private List<DataFile> twoFilesWithDeletedRows() {
    events = store.createTable(dev.featurestore.TableDefinition.builder("features.ratio_events",
        dev.featurestore.SyntheticFeatures.schema()).formatVersion(3).build());
    List<DataFile> files = new ArrayList<>(appendRows(events, 0, 20));
    files.addAll(appendRows(events, 100, 20));
    deleteIds(events, 7);
    deleteIds(events, 100, 101, 102, 110, 111, 119);
    return files;
  }

  /** The live data files (liveDataFiles lists their delete files too). */
  private List<String> dataFiles() {
    return liveDataFiles(events).stream().filter(f -> f.endsWith(".parquet")).toList();
  }

  private List<Long> expectedAfterDeletes() {
    List<Long> expected = range(0, 20);
    expected.addAll(range(100, 120));
    expected.removeAll(List.of(7L, 100L, 101L, 102L, 110L, 111L, 119L));
    return expected;
  }

  @Test
  void compact_largeFiles_rewrittenOnlyPastTheDeletedRowsThreshold_rowsUnchanged() {
    List<DataFile> files = twoFilesWithDeletedRows();
    List<Long> expected = expectedAfterDeletes();
    assertThat(ids(events)).isEqualTo(expected);

    // every file counts as large (smallFileThresholdBytes(1)): only deletes can select it
    CompactionResult result = events.maintenance().compact().smallFileThresholdBytes(1).deletedRowsThreshold(0.2)
        .execute();

    assertThat(result.rewrittenDataFiles()).isEqualTo(1);
    assertThat(result.rows()).isEqualTo(14);
    assertThat(dataFiles()).hasSize(2).contains(files.get(0).location())
        .doesNotContain(files.get(1).location());
    assertThat(ids(events)).isEqualTo(expected);
  }

  @Test
  void compact_deletedRowsThreshold_defaultsToTenPercent_andZeroRewritesEveryFileWithDeletes() {
    List<DataFile> files = twoFilesWithDeletedRows();

    CompactionResult byDefault = events.maintenance().compact().smallFileThresholdBytes(1).execute();
    assertThat(byDefault.rewrittenDataFiles()).isEqualTo(1); // B (30%), not A (5%)
    assertThat(dataFiles()).contains(files.get(0).location());

    CompactionResult all = events.maintenance().compact().smallFileThresholdBytes(1).deletedRowsThreshold(0)
        .execute();
    assertThat(all.rewrittenDataFiles()).isEqualTo(1); // A, the only file left with deletes
    assertThat(dataFiles()).doesNotContain(files.get(0).location());
    assertThat(ids(events)).isEqualTo(expectedAfterDeletes());
  }

  @Test
  void compact_smallFileWithFewDeletes_isRewrittenWhateverTheThreshold() {
    List<DataFile> files = twoFilesWithDeletedRows();

    CompactionResult result = events.maintenance().compact().deletedRowsThreshold(1).execute(); // 20-row files are small

    assertThat(result.rewrittenDataFiles()).isEqualTo(2);
    assertThat(dataFiles()).hasSize(1).doesNotContainAnyElementsOf(files.stream().map(DataFile::location).toList());
    assertThat(ids(events)).isEqualTo(expectedAfterDeletes());
  }

  @Test
  void compact_maintenancePolicy_passesItsDeletedRowsThreshold() {
    List<DataFile> files = twoFilesWithDeletedRows();
    // 40-row files are small under the default target; a target of 1 byte makes them large
    events.unwrap(Table.class).updateProperties().set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1").commit();
    events.refresh();
    dev.featurestore.MaintenancePolicy policy = dev.featurestore.MaintenancePolicy.builder()
        .compactWhenDeleteFilesAtLeast(1).rewriteFilesWhenDeletedRowsAtLeast(0.5).removeOrphans(false).build();

    // with size tiers (the default) or without, a plan runs no compaction that would rewrite nothing
    assertThat(events.maintenance().plan(policy).steps()).isEmpty();
    var report = events.maintenance().plan(policy.toBuilder().compactEverySmallFile().build()).execute();

    assertThat(report.steps()).isEmpty();
    assertThat(report.compaction()).isEmpty();
    assertThat(dataFiles()).containsExactlyInAnyOrderElementsOf(files.stream().map(DataFile::location).toList());
    assertThat(ids(events)).isEqualTo(expectedAfterDeletes());

    // 4% passes to the compaction: both files (5% and 30%) are rewritten, where the default 10% takes only B
    var both = events.maintenance().plan(policy.toBuilder().rewriteFilesWhenDeletedRowsAtLeast(0.04).build()).execute();
    assertThat(both.compaction()).hasValueSatisfying(r -> assertThat(r.rewrittenDataFiles()).isEqualTo(2));
    assertThat(ids(events)).isEqualTo(expectedAfterDeletes());
  }

  @Test
  void compact_deletedRowsThresholdOutsideZeroToOne_fails() {
    events = TestTables.createEvents(store, false);
    for (double bad : new double[] {-0.1, 1.5, Double.NaN}) {
      assertThatThrownBy(() -> events.maintenance().compact().deletedRowsThreshold(bad))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot compact: deleted-rows threshold must be between 0 and 1: " + bad);
      assertThatThrownBy(() -> dev.featurestore.MaintenancePolicy.builder().rewriteFilesWhenDeletedRowsAtLeast(bad))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot set deleted-rows threshold: must be between 0 and 1: " + bad);
    }
    assertThat(dev.featurestore.MaintenancePolicy.defaults().deletedRowsThreshold()).isEqualTo(0.1);
    assertThat(dev.featurestore.MaintenancePolicy.streaming().deletedRowsThreshold()).isEqualTo(0.1);
  }

  /** Every row of the table, all columns, sorted: what a compaction must leave as it found it. */
  private List<String> allRows(FeatureTable table) {
    List<String> rows = new ArrayList<>();
    try (QueryResult result = table.query().execute()) {
      for (Row row : result) {
        rows.add(row.toMap().toString());
      }
    }
    rows.sort(String::compareTo);
    return rows;
  }

  private static long sizeOf(String location) {
    try {
      return Files.size(Path.of(location.startsWith("file:") ? java.net.URI.create(location).getPath() : location));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Rounds of planned maintenance (default policy: size tiers) over a table that grows by a few
   * small files per round: the big file is never rewritten, the small ones are merged, and no
   * round rewrites more than the small files. A full compaction of the same table rewrites the
   * big file too.
   */
  @Test
  void sizeTiers_roundsOverAGrowingTable_leaveTheBigFileAlone_andMergeTheSmallOnes() {
    events = TestTables.createEvents(store, false);
    String big = appendRows(events, 0, 20_000).get(0).location();
    long bigBytes = sizeOf(big);
    dev.featurestore.MaintenancePolicy policy = dev.featurestore.MaintenancePolicy.builder()
        .compactWhenSmallFilesAtLeast(5).removeOrphans(false).build();
    long next = 100_000;
    int compactions = 0;
    for (int round = 0; round < 8; round++) {
      for (int i = 0; i < 4; i++) {
        appendRows(events, next, 10);
        next += 10;
      }
      List<String> before = allRows(events);

      var report = events.maintenance().plan(policy).execute();

      assertThat(allRows(events)).isEqualTo(before);
      assertThat(dataFiles()).contains(big);
      if (report.compaction().isPresent()) {
        compactions++;
        CompactionResult r = report.compaction().get();
        assertThat(r.rewrittenDataFiles()).isGreaterThanOrEqualTo(4);
        assertThat(r.rewrittenBytes()).isLessThan(bigBytes);
      }
      // never more than a few small files beside the big one: the tiers merge as they fill
      assertThat(dataFiles()).hasSizeLessThanOrEqualTo(1 + 3 * 4);
    }
    assertThat(compactions).isGreaterThanOrEqualTo(4);
    List<Long> expected = range(0, 20_000);
    expected.addAll(range(100_000, next));
    assertThat(ids(events)).isEqualTo(expected);

    List<String> before = allRows(events);
    CompactionResult full = events.maintenance().compact().execute(); // no tiers: a full compaction
    assertThat(full.rewrittenBytes()).isGreaterThan(bigBytes);
    assertThat(dataFiles()).hasSize(1).doesNotContain(big);
    assertThat(allRows(events)).isEqualTo(before);
  }

  @Test
  void sizeTiers_aTierReachingItsFileCount_isMerged_notBefore() {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 3; i++) {
      appendRows(events, i * 10L, 10);
    }
    long snapshot = TestTables.currentSnapshotId(events);

    CompactionResult three = events.maintenance().compact().sizeTiers(2.0, 4).execute();

    assertThat(three.snapshotId()).isEmpty();
    assertThat(three.rewrittenDataFiles()).isZero();
    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(snapshot);

    appendRows(events, 30, 10);
    List<String> before = allRows(events);
    CompactionResult four = events.maintenance().compact().sizeTiers(2.0, 4).execute();

    assertThat(four.rewrittenDataFiles()).isEqualTo(4);
    assertThat(four.addedDataFiles()).isEqualTo(1);
    assertThat(dataFiles()).hasSize(1);
    assertThat(allRows(events)).isEqualTo(before);
    assertThat(ids(events)).isEqualTo(range(0, 40));
  }

  /** Files of different sizes are different tiers: four small files merge, the larger ones do not join them. */
  @Test
  void sizeTiers_filesOfDifferentSizes_areNotMergedTogether() {
    events = TestTables.createEvents(store, false);
    List<String> larger = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      larger.add(appendRows(events, 100_000L * (i + 1), 50_000).get(0).location());
    }
    List<String> smaller = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      smaller.add(appendRows(events, i * 10L, 10).get(0).location());
    }
    // what the test rests on: each larger file is more than twice the four small ones together
    long smallBytes = smaller.stream().mapToLong(CompactionTest::sizeOf).sum();
    assertThat(larger).allSatisfy(f -> assertThat(sizeOf(f)).isGreaterThan(2 * smallBytes));
    List<String> before = allRows(events);

    CompactionResult result = events.maintenance().compact().sizeTiers(2.0, 4).execute();

    assertThat(result.rewrittenDataFiles()).isEqualTo(4);
    assertThat(dataFiles()).hasSize(4).containsAll(larger).doesNotContainAnyElementsOf(smaller);
    assertThat(allRows(events)).isEqualTo(before);
  }

  /**
   * With tiers, the deleted-rows threshold applies to every file not merged: the small file with
   * 30% of its rows deleted is rewritten alone (its deletion vector folded in), the one with 5%
   * keeps its vector.
   */
  @Test
  void sizeTiers_deletedRowsThreshold_rewritesASmallFileNotMerged() {
    List<DataFile> files = twoFilesWithDeletedRows();
    long deleteFilesBefore = liveDataFiles(events).stream().filter(f -> !f.endsWith(".parquet")).distinct().count();

    CompactionResult result = events.maintenance().compact().sizeTiers(2.0, 4).execute();

    assertThat(result.rewrittenDataFiles()).isEqualTo(1); // B (30%), not A (5%): a tier of two is not merged
    assertThat(result.rows()).isEqualTo(14);
    assertThat(dataFiles()).hasSize(2).contains(files.get(0).location()).doesNotContain(files.get(1).location());
    assertThat(liveDataFiles(events).stream().filter(f -> !f.endsWith(".parquet")).distinct().count())
        .isLessThanOrEqualTo(deleteFilesBefore).isPositive(); // A's vector stays
    assertThat(ids(events)).isEqualTo(expectedAfterDeletes());

    CompactionResult none = events.maintenance().compact().sizeTiers(2.0, 4).execute();
    assertThat(none.snapshotId()).isEmpty(); // A alone, 5% deleted: left as it is
  }

  /** Position deletes (format 2) and deletion vectors (format 3) on a merged tier are applied, and their files dropped. */
  @ParameterizedTest(name = "format {0}")
  @ValueSource(ints = {2, 3})
  void sizeTiers_mergedTierWithDeletes_appliesThem_andDropsTheirFiles(int format) {
    events = store.createTable(dev.featurestore.TableDefinition.builder("features.tier_events",
        dev.featurestore.SyntheticFeatures.schema()).formatVersion(format).build());
    for (int i = 0; i < 4; i++) {
      appendRows(events, i * 20L, 20);
    }
    deleteIds(events, 3, 25, 61);
    List<String> before = allRows(events);

    CompactionResult result = events.maintenance().compact().sizeTiers(2.0, 4).deletedRowsThreshold(1).execute();

    assertThat(result.rewrittenDataFiles()).isEqualTo(4);
    assertThat(result.rows()).isEqualTo(77);
    assertThat(liveDataFiles(events)).hasSize(1); // one data file, no delete file
    assertThat(allRows(events)).isEqualTo(before);
  }

  @Test
  void sizeTiers_failureBeforeTheCommit_leavesTheTableUnchanged() throws Exception {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 5; i++) {
      appendRows(events, i * 10L, 10);
    }
    long snapshot = TestTables.currentSnapshotId(events);
    List<String> before = allRows(events);
    List<String> liveBefore = liveDataFiles(events);
    long onDisk = filesOnDisk();
    CompactionOperation compaction = (CompactionOperation) events.maintenance().compact().sizeTiers(2.0, 4);
    compaction.beforeCommit = () -> {
      throw new IllegalStateException("storage went away");
    };

    assertThatThrownBy(compaction::execute).isInstanceOf(IllegalStateException.class).hasMessage("storage went away");

    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(snapshot);
    assertThat(liveDataFiles(events)).containsExactlyInAnyOrderElementsOf(liveBefore);
    assertThat(filesOnDisk()).isEqualTo(onDisk); // the compaction's output is gone
    assertThat(allRows(events)).isEqualTo(before);
  }

  /** With tiers, a plan runs no compaction that would rewrite nothing, though the small files reach the threshold. */
  @Test
  void sizeTiers_planSkipsACompactionThatWouldRewriteNothing() {
    events = TestTables.createEvents(store, false);
    appendRows(events, 0, 10);
    appendRows(events, 100, 2_000);
    appendRows(events, 10_000, 50_000);
    dev.featurestore.MaintenancePolicy tiers = dev.featurestore.MaintenancePolicy.builder()
        .compactWhenSmallFilesAtLeast(3).removeOrphans(false).build();

    assertThat(events.maintenance().plan(tiers).steps()).isEmpty(); // three tiers of one file each
    assertThat(events.maintenance().plan(tiers.toBuilder().compactEverySmallFile().build()).steps())
        .extracting(dev.featurestore.MaintenanceStep::task).containsExactly(dev.featurestore.MaintenanceTask.COMPACT);
  }

  @Test
  void sizeTiers_badSettings_fail() {
    events = TestTables.createEvents(store, false);
    for (double bad : new double[] {0.5, 0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> events.maintenance().compact().sizeTiers(bad, 4))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot compact size tiers: size ratio must be a number of at least 1: " + bad);
      assertThatThrownBy(() -> dev.featurestore.MaintenancePolicy.builder().compactSizeTiers(bad, 4))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot set compaction size tiers: size ratio must be a number of at least 1: " + bad);
    }
    assertThatThrownBy(() -> events.maintenance().compact().sizeTiers(2, 1))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compact size tiers: files per tier must be at least 2: 1");
    assertThatThrownBy(() -> dev.featurestore.MaintenancePolicy.builder().compactSizeTiers(2, 1))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set compaction size tiers: files per tier must be at least 2: 1");
    assertThat(dev.featurestore.MaintenancePolicy.defaults().compactionSizeRatio()).isEqualTo(2.0);
    assertThat(dev.featurestore.MaintenancePolicy.streaming().compactionTierFiles()).isEqualTo(4);
    assertThat(dev.featurestore.MaintenancePolicy.builder().compactEverySmallFile().build().compactionSizeRatio()).isZero();
  }
}
