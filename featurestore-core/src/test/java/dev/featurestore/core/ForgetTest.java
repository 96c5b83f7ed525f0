package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureTable;
import dev.featurestore.ForgetResult;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.base.RowMatches;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Forget: the rows leave the current snapshot (their files rewritten, not masked), every snapshot
 * whose files hold them is expired except those a ref points at (reported), and the files no
 * snapshot needs are gone from disk.
 */
class ForgetTest extends StoreTest {

  FeatureTable table(int formatVersion) {
    openLocalStore();
    return store.createTable(TableDefinition.builder("t.rows", RowDeletionTest.SCHEMA).bloomFilter("id", 1000)
        .formatVersion(formatVersion).build());
  }

  /** The ids the data files of a snapshot hold in their bytes, deletes not applied. */
  static Set<Long> idsInFiles(FeatureTable featureTable, long snapshotId) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    Set<Long> ids = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<Record> rows = RowMatches.open(table, task, table.schema().select("id"))) {
          rows.forEach(r -> ids.add((Long) r.getField("id")));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  static Set<String> dataFiles(FeatureTable featureTable, long snapshotId) {
    Table table = featureTable.unwrap(Table.class);
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  static boolean onDisk(String location) {
    return Files.exists(location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void forget_removesTheRowsFromEveryNonRefSnapshotAndTheirFilesFromDisk(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(RowDeletionTest.batch(0));                                    // s1: file A holds 5
    long s1 = table.snapshots().current().orElseThrow().snapshotId();
    table.snapshots().createTag("audit", s1);
    table.append(RowDeletionTest.batch(10));                                   // s2: file B holds 15
    long s2 = table.snapshots().current().orElseThrow().snapshotId();
    table.append(List.of(RowDeletionTest.row(5, 1.0, null, "again"), RowDeletionTest.row(60, 2.0, null, "x"))); // s3: C
    long s3 = table.snapshots().current().orElseThrow().snapshotId();
    table.deleteRows().keys("id", List.of(5L)).execute();                     // s4: 5 masked, still in A's and C's bytes
    long s4 = table.snapshots().current().orElseThrow().snapshotId();
    Set<String> holding = new HashSet<>(dataFiles(table, s4));
    Set<String> fileA = dataFiles(table, s1);

    ForgetResult result = table.deleteRows().keys("id", List.of(5L, 15L)).forget();

    assertThat(result.rowsDeleted()).as("15 was live, 5 already masked").isEqualTo(1);
    assertThat(result.dataFilesRewritten()).isEqualTo(3);
    assertThat(result.refsHoldingRows()).containsExactly(Map.entry("audit", s1));
    assertThat(result.heldByRefs()).isTrue();
    assertThat(result.expiredSnapshotIds()).containsExactly(s2, s3, s4);
    assertThat(result.expiry().deletedDataFiles()).as("B and C; A is the tag's").isEqualTo(2);

    long current = result.snapshotId().getAsLong();
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    for (Snapshot snapshot : iceberg.snapshots()) {
      if (snapshot.snapshotId() != s1) {
        assertThat(idsInFiles(table, snapshot.snapshotId())).as("snapshot %s", snapshot.snapshotId())
            .doesNotContain(5L, 15L);
      }
    }
    assertThat(idsInFiles(table, s1)).as("the tag still holds it").contains(5L);
    assertThatThrownBy(() -> table.query().asOfSnapshot(s2).execute()).isInstanceOf(SnapshotNotFoundException.class);
    for (String file : holding) {
      assertThat(onDisk(file)).as(file).isEqualTo(fileA.contains(file));
    }
    Set<Long> expected = new TreeSet<>(RowDeletionTest.ids(table));
    assertThat(expected).doesNotContain(5L, 15L).contains(60L).hasSize(19);
    RowDeletionTest.everyReaderSees(table, expected, 60);
    assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(current);

    // once the tag goes, forgetting again removes the last copy
    table.snapshots().removeTag("audit");
    ForgetResult again = table.deleteRows().keys("id", List.of(5L, 15L)).forget();
    assertThat(again.snapshotId()).as("the current snapshot holds nothing").isEmpty();
    assertThat(again.expiredSnapshotIds()).containsExactly(s1);
    assertThat(again.refsHoldingRows()).isEmpty();
    fileA.forEach(file -> assertThat(onDisk(file)).as(file).isFalse());
    RowDeletionTest.everyReaderSees(table, expected, 60);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void forgetByFilter_withAConcurrentCompaction_failsAndChangesNothing(int formatVersion) {
    FeatureTable table = table(formatVersion);
    table.append(RowDeletionTest.batch(0));
    table.append(RowDeletionTest.batch(10));
    RowDeletionOperation forget = (RowDeletionOperation) table.deleteRows().where(Expressions.equal("name", "n3"));
    List<Long> history = new ArrayList<>();
    forget.beforeCommit(() -> {
      table.maintenance().compact().minInputFiles(2).execute();
      table.snapshots().history().forEach(s -> history.add(s.snapshotId()));
    });
    assertThatThrownBy(forget::forget).isExactlyInstanceOf(CommitConflictException.class)
        .hasMessageStartingWith("Cannot forget rows of table t.rows: a concurrent commit changed the same data files");
    assertThat(table.snapshots().history()).extracting(s -> s.snapshotId()).containsExactlyElementsOf(history);
    assertThat(RowDeletionTest.ids(table)).hasSize(20).contains(3L);
  }
}
