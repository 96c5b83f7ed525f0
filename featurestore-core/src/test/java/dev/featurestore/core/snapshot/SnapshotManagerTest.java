package dev.featurestore.core.snapshot;

import static dev.featurestore.core.query.TestTables.append;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static dev.featurestore.core.query.TestTables.event;
import static dev.featurestore.core.query.TestTables.tick;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotManager;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SnapshotManagerTest extends LocalStoreTest {
  private FeatureTable events;
  private SnapshotManager snapshots;
  private final List<Long> ids = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
    snapshots = events.snapshots();
  }

  /** Three appends of 10, 20 and 30 rows, with disjoint entity id ranges (one file each). */
  private void threeAppends() {
    int[] sizes = {10, 20, 30};
    long next = 0;
    for (int size : sizes) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        rows.add(event(events, next++, "2026-01-01T00:00:00Z", (double) i, 1.0));
      }
      files.addAll(append(events, rows));
      ids.add(currentSnapshotId(events));
      tick();
    }
  }

  private long rowCount(String ref) {
    try (QueryResult result = events.query().atRef(ref).execute()) {
      return result.toList().size();
    }
  }

  @Test
  void history_listsCommitsOldestFirstWithDeltas() {
    threeAppends();
    events.unwrap(Table.class).newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();

    List<SnapshotInfo> history = snapshots.history();
    assertThat(history).hasSize(4);
    assertThat(history).extracting(SnapshotInfo::snapshotId).startsWith(ids.get(0), ids.get(1), ids.get(2));
    assertThat(history).extracting(SnapshotInfo::operation).containsExactly("append", "append", "append", "delete");
    assertThat(history).extracting(SnapshotInfo::addedRows).containsExactly(10L, 20L, 30L, 0L);
    assertThat(history).extracting(SnapshotInfo::deletedRows).containsExactly(0L, 0L, 0L, 10L);
    assertThat(history).extracting(SnapshotInfo::totalRows).containsExactly(10L, 30L, 60L, 50L);
    assertThat(history).extracting(SnapshotInfo::addedDataFiles).containsExactly(1L, 1L, 1L, 0L);
    assertThat(history).extracting(SnapshotInfo::removedDataFiles).containsExactly(0L, 0L, 0L, 1L);
    assertThat(history.get(0).addedBytes()).isEqualTo(files.get(0).fileSizeInBytes());
    assertThat(history.get(3).removedBytes()).isEqualTo(files.get(0).fileSizeInBytes());
    assertThat(history).extracting(SnapshotInfo::current).containsExactly(false, false, false, true);
    assertThat(history.get(0).parentId()).isEmpty();
    assertThat(history.get(1).parentId()).hasValue(ids.get(0));
    assertThat(history.get(3).summary()).containsEntry("deleted-records", "10");
    assertThat(snapshots.current()).contains(history.get(3));
  }

  @Test
  void history_ofEmptyTable_isEmpty() {
    assertThat(snapshots.history()).isEmpty();
    assertThat(snapshots.current()).isEmpty();
    assertThat(snapshots.refs()).isEmpty();
  }

  @Test
  void snapshot_byIdAndAsOfTime() {
    threeAppends();
    assertThat(snapshots.snapshot(ids.get(1)).totalRows()).isEqualTo(30);
    Instant between = snapshots.snapshot(ids.get(1)).timestamp().plusMillis(1);
    assertThat(snapshots.snapshotAsOf(between).snapshotId()).isEqualTo(ids.get(1));
    assertThat(snapshots.snapshotAsOf(Instant.now()).snapshotId()).isEqualTo(ids.get(2));
  }

  @Test
  void snapshot_unknownId_fails() {
    threeAppends();
    assertThatThrownBy(() -> snapshots.snapshot(42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot find snapshot: unknown snapshot id: 42");
  }

  @Test
  void snapshotAsOf_beforeFirstSnapshot_fails() {
    threeAppends();
    Instant early = Instant.parse("2000-01-01T00:00:00Z");
    assertThatThrownBy(() -> snapshots.snapshotAsOf(early))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot find snapshot: time is before the first snapshot: 2000-01-01T00:00:00Z");
  }

  @Test
  void rollbackTo_ancestor_movesMainAndKeepsLaterSnapshotsReadable() {
    threeAppends();
    SnapshotInfo info = snapshots.rollbackTo(ids.get(0));
    assertThat(info.snapshotId()).isEqualTo(ids.get(0));
    assertThat(info.current()).isTrue();
    assertThat(rowCount("main")).isEqualTo(10);
    assertThat(snapshots.history()).hasSize(3);
    try (QueryResult later = events.query().asOfSnapshot(ids.get(2)).execute()) {
      assertThat(later.toList()).hasSize(60);
    }
  }

  @Test
  void rollback_toUnknownSnapshot_fails() {
    threeAppends();
    assertThatThrownBy(() -> snapshots.rollbackTo(42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot roll back to unknown snapshot: 42");
  }

  @Test
  void rollback_toNonAncestor_failsAndSetCurrentWorks() {
    threeAppends();
    snapshots.rollbackTo(ids.get(0));
    assertThatThrownBy(() -> snapshots.rollbackTo(ids.get(2)))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot roll back to snapshot " + ids.get(2)
            + ": not an ancestor of the current snapshot (use setCurrent)");
    assertThat(snapshots.current().orElseThrow().snapshotId()).isEqualTo(ids.get(0));

    SnapshotInfo info = snapshots.setCurrent(ids.get(2));
    assertThat(info.current()).isTrue();
    assertThat(rowCount("main")).isEqualTo(60);
  }

  @Test
  void setCurrent_unknownSnapshot_fails() {
    threeAppends();
    assertThatThrownBy(() -> snapshots.setCurrent(42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot set current snapshot: unknown snapshot id: 42");
  }

  @Test
  void rollbackToTime_picksSnapshotCurrentThen() {
    threeAppends();
    Instant between = snapshots.snapshot(ids.get(1)).timestamp().plusMillis(1);
    SnapshotInfo info = snapshots.rollbackToTime(between);
    assertThat(info.snapshotId()).isEqualTo(ids.get(1));
    assertThat(rowCount("main")).isEqualTo(30);
  }

  @Test
  void rollbackToTime_beforeFirstSnapshot_fails() {
    threeAppends();
    assertThatThrownBy(() -> snapshots.rollbackToTime(Instant.parse("2000-01-01T00:00:00Z")))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot roll back: time is before the first snapshot: 2000-01-01T00:00:00Z");
  }

  @Test
  void tagsAndBranches_areListedAndReadable() {
    threeAppends();
    snapshots.createTag("v1", ids.get(0));
    snapshots.createBranch("experiment", ids.get(1));
    assertThat(snapshots.refs()).containsEntry("v1", ids.get(0)).containsEntry("experiment", ids.get(1))
        .containsEntry("main", ids.get(2)).hasSize(3);
    assertThat(rowCount("v1")).isEqualTo(10);
    assertThat(rowCount("experiment")).isEqualTo(30);
    assertThat(rowCount("main")).isEqualTo(60);
  }

  @Test
  void createTag_existingName_fails() {
    threeAppends();
    snapshots.createTag("v1", ids.get(0));
    assertThatThrownBy(() -> snapshots.createTag("v1", ids.get(1)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot create tag: ref already exists: v1");
    assertThatThrownBy(() -> snapshots.createBranch("main", ids.get(1)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot create branch: ref already exists: main");
    assertThat(snapshots.refs()).containsEntry("v1", ids.get(0));
  }

  @Test
  void createTag_unknownSnapshot_fails() {
    threeAppends();
    assertThatThrownBy(() -> snapshots.createTag("v9", 42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot create tag v9: unknown snapshot id: 42");
    assertThatThrownBy(() -> snapshots.createBranch("b9", 42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot create branch b9: unknown snapshot id: 42");
  }
}
