package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static dev.featurestore.core.maintenance.MaintenanceTestData.liveDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ExpireSnapshotsTest extends LocalStoreTest {
  private FeatureTable events;
  private final List<Long> snapshots = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
  }

  /** Five appends of 10 rows (ids 0-49), one file each. */
  private void fiveAppends() {
    for (int i = 0; i < 5; i++) {
      files.addAll(appendRows(events, i * 10L, 10));
      snapshots.add(TestTables.currentSnapshotId(events));
      TestTables.tick();
    }
  }

  private Table iceberg() {
    Table table = events.unwrap(Table.class);
    table.refresh();
    return table;
  }

  @Test
  void expire_retainLast_removesOlderSnapshotsAndUnreachableFiles() throws Exception {
    fiveAppends();
    // removes the first file entirely (all its rows match): it stays reachable from older snapshots only
    iceberg().newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();
    String removedFile = files.get(0).location();
    long removedFileSize = Files.size(Path.of(removedFile));
    List<String> manifestLists = new ArrayList<>();
    for (Snapshot s : iceberg().snapshots()) {
      manifestLists.add(s.manifestListLocation());
    }

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();

    assertThat(result.expiredSnapshotIds()).containsExactlyElementsOf(snapshots);
    assertThat(result.deletedDataFiles()).isEqualTo(1);
    assertThat(result.deletedDeleteFiles()).isZero();
    assertThat(result.deletedManifestLists()).isEqualTo(5);
    assertThat(result.deletedManifests()).isPositive();
    assertThat(result.bytesFreed()).isGreaterThan(removedFileSize);
    assertThat(exists(removedFile)).isFalse();
    assertThat(manifestLists.subList(0, 5)).noneMatch(MaintenanceTestData::exists);
    assertThat(exists(manifestLists.get(5))).isTrue();
    assertThat(events.snapshots().history()).hasSize(1);
    assertThat(events.query().count()).isEqualTo(40);
    assertThat(liveDataFiles(events)).allMatch(MaintenanceTestData::exists);
  }

  @Test
  void expire_olderThan_keepsNewerSnapshots() {
    fiveAppends();
    Instant cutoff = events.snapshots().snapshot(snapshots.get(2)).timestamp();

    ExpireResult result = events.maintenance().expireSnapshots().olderThan(cutoff).execute();

    assertThat(result.expiredSnapshotIds()).containsExactly(snapshots.get(0), snapshots.get(1));
    assertThat(result.deletedDataFiles()).isZero(); // appends only: every file is still live
    assertThat(events.query().count()).isEqualTo(50);
  }

  @Test
  void expire_olderThanAndRetainLast_keepsTheLastNEvenIfOlder() {
    fiveAppends();

    ExpireResult result = events.maintenance().expireSnapshots()
        .olderThan(Instant.now().plusSeconds(60)).retainLast(3).execute();

    assertThat(result.expiredSnapshotIds()).containsExactly(snapshots.get(0), snapshots.get(1));
    assertThat(events.snapshots().history()).hasSize(3);
  }

  @Test
  void expire_neverRemovesWhatATagHolds() {
    fiveAppends();
    iceberg().newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();
    events.snapshots().createTag("first", snapshots.get(0));

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();

    assertThat(result.expiredSnapshotIds()).doesNotContain(snapshots.get(0)).hasSize(4);
    assertThat(result.deletedDataFiles()).isZero(); // the tagged snapshot still needs the first file
    assertThat(exists(files.get(0).location())).isTrue();
    assertThat(events.query().atRef("first").count()).isEqualTo(10);
  }

  @Test
  void expire_snapshotHeldByTag_fails() {
    fiveAppends();
    events.snapshots().createTag("v1", snapshots.get(1));

    assertThatThrownBy(() -> events.maintenance().expireSnapshots().expireSnapshotId(snapshots.get(1)).execute())
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot expire snapshot " + snapshots.get(1) + ": it is held by tag v1: remove or move the ref first");
    assertThat(events.snapshots().history()).hasSize(5);
  }

  @Test
  void expire_currentSnapshot_failsAsHeldByMain() {
    fiveAppends();
    long current = snapshots.get(4);

    assertThatThrownBy(() -> events.maintenance().expireSnapshots().expireSnapshotId(current).execute())
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot expire snapshot " + current + ": it is held by branch main: remove or move the ref first");
  }

  @Test
  void expire_snapshotId_expiresOnlyThatSnapshot() {
    fiveAppends();

    ExpireResult result = events.maintenance().expireSnapshots().expireSnapshotId(snapshots.get(2)).execute();

    assertThat(result.expiredSnapshotIds()).containsExactly(snapshots.get(2));
    assertThat(result.deletedManifestLists()).isEqualTo(1);
    assertThat(events.query().count()).isEqualTo(50);
  }

  @Test
  void expire_unknownSnapshotId_fails() {
    fiveAppends();

    assertThatThrownBy(() -> events.maintenance().expireSnapshots().expireSnapshotId(42L).execute())
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot expire snapshot: unknown snapshot id: 42");
  }

  @Test
  void expire_retainLastBelowOne_fails() {
    assertThatThrownBy(() -> events.maintenance().expireSnapshots().retainLast(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot retain last snapshots: count must be at least 1: 0");
  }

  @Test
  void expire_nothingSelected_fails() {
    assertThatThrownBy(() -> events.maintenance().expireSnapshots().execute())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot expire snapshots: nothing selected: set retainLast, olderThan or expireSnapshotId");
  }

  @Test
  void expire_executedTwice_fails() {
    fiveAppends();
    var expiry = events.maintenance().expireSnapshots().retainLast(2);
    expiry.execute();

    assertThatThrownBy(expiry::execute)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute snapshot expiry of table " + events.id() + ": already executed");
  }

  @Test
  void expire_withoutDeletingFiles_keepsFiles() {
    fiveAppends();
    iceberg().newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).deleteFiles(false).execute();

    assertThat(result.expiredSnapshots()).isEqualTo(5);
    assertThat(result.deletedFiles()).isZero();
    assertThat(exists(files.get(0).location())).isTrue();
  }

  @Test
  void expire_withConcurrentAppendsFromAnotherStore_losesNoRowsAndDeletesNoLiveFile() throws Exception {
    fiveAppends();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try (FeatureStore other = FeatureStore.openLocal(dir)) {
        FeatureTable table = other.table(events.id());
        for (int i = 0; i < 10; i++) {
          appendRows(table, 1000 + i * 10L, 10);
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    writer.start();
    int expired = 0;
    while (writer.isAlive()) {
      expired += events.maintenance().expireSnapshots().retainLast(1).execute().expiredSnapshots();
    }
    writer.join();
    assertThat(failure.get()).isNull();
    expired += events.maintenance().expireSnapshots().retainLast(1).execute().expiredSnapshots();

    assertThat(expired).isEqualTo(14); // 5 + 10 snapshots, one kept
    assertThat(events.query().count()).isEqualTo(150);
    assertThat(liveDataFiles(events)).hasSize(15).allMatch(MaintenanceTestData::exists);
  }
}
