package dev.featurestore.core.snapshot;

import static dev.featurestore.core.query.TestTables.append;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.RefInfo;
import dev.featurestore.SnapshotDiff;
import dev.featurestore.SnapshotDiff.ColumnChange;
import dev.featurestore.SnapshotDiff.ColumnChange.Kind;
import dev.featurestore.SnapshotManager;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SnapshotRefsTest extends LocalStoreTest {
  private FeatureTable events;
  private SnapshotManager snapshots;
  private final List<Long> ids = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
    snapshots = events.snapshots();
  }

  private void appendRows(long first, int count) {
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(event(events, first + i, "2026-01-01T00:00:00Z", 1.0, 1.0));
    }
    files.addAll(append(events, rows));
    ids.add(currentSnapshotId(events));
  }

  /** Commits an append of {@code count} rows to {@code branch} only. */
  private long appendToBranch(String branch, long first, int count) {
    Table table = events.unwrap(Table.class);
    table.refresh();
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(event(events, first + i, "2026-01-01T00:00:00Z", 1.0, 1.0));
    }
    // write the file with the helper on main, then move it: simpler to append via Iceberg's toBranch
    List<DataFile> written = TestTables.append(events, rows);
    long onMain = currentSnapshotId(events);
    table.refresh();
    table.manageSnapshots().rollbackTo(table.snapshot(onMain).parentId()).commit();
    table.newAppend().appendFile(written.get(0)).toBranch(branch).commit();
    table.refresh();
    events.refresh();
    return table.refs().get(branch).snapshotId();
  }

  @Test
  void replaceTag_movesTheTag() {
    appendRows(0, 10);
    appendRows(10, 10);
    snapshots.createTag("v1", ids.get(0));

    snapshots.replaceTag("v1", ids.get(1));

    assertThat(snapshots.refs()).containsEntry("v1", ids.get(1));
    assertThat(events.query().atRef("v1").count()).isEqualTo(20);
  }

  @Test
  void replaceTag_unknownTag_fails() {
    appendRows(0, 10);

    assertThatThrownBy(() -> snapshots.replaceTag("nope", ids.get(0)))
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot replace tag: unknown tag: nope");
  }

  @Test
  void replaceTag_onABranch_fails() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));

    assertThatThrownBy(() -> snapshots.replaceTag("dev", ids.get(0)))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot replace tag: ref is a branch, not a tag: dev");
  }

  @Test
  void replaceBranch_toUnknownSnapshot_fails() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));

    assertThatThrownBy(() -> snapshots.replaceBranch("dev", 42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot replace branch dev: unknown snapshot id: 42");
  }

  @Test
  void createBranch_nameExists_fails() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));

    assertThatThrownBy(() -> snapshots.createBranch("dev", ids.get(0)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot create branch: ref already exists: dev");
  }

  @Test
  void renameBranch_renamesAndKeepsTheSnapshot() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));

    snapshots.renameBranch("dev", "staging");

    assertThat(snapshots.refs()).containsEntry("staging", ids.get(0)).doesNotContainKey("dev");
  }

  @Test
  void renameBranch_ontoExistingName_fails() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));
    snapshots.createTag("v1", ids.get(0));

    assertThatThrownBy(() -> snapshots.renameBranch("dev", "v1"))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot rename branch dev: ref already exists: v1");
  }

  @Test
  void renameBranch_unknown_fails() {
    assertThatThrownBy(() -> snapshots.renameBranch("dev", "x"))
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot rename branch: unknown branch: dev");
  }

  @Test
  void removeBranchAndTag_removeOnlyTheRef() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));
    snapshots.createTag("v1", ids.get(0));

    snapshots.removeBranch("dev");
    snapshots.removeTag("v1");

    assertThat(snapshots.refs()).containsOnlyKeys("main");
    assertThat(snapshots.snapshot(ids.get(0)).snapshotId()).isEqualTo(ids.get(0));
  }

  @Test
  void removeBranch_main_fails() {
    assertThatThrownBy(() -> snapshots.removeBranch("main"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot remove branch: main cannot be removed: main");
  }

  @Test
  void removeTag_unknown_fails() {
    assertThatThrownBy(() -> snapshots.removeTag("v9"))
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot remove tag: unknown tag: v9");
  }

  @Test
  void writeAuditPublish_publishFastForwardsMainToTheBranch() {
    appendRows(0, 10);
    snapshots.createBranch("audit", ids.get(0));
    long staged = appendToBranch("audit", 100, 5);
    assertThat(events.query().count()).isEqualTo(10);           // main unchanged
    assertThat(events.query().atRef("audit").count()).isEqualTo(15); // audit the branch

    var published = snapshots.publish("audit");

    assertThat(published.snapshotId()).isEqualTo(staged);
    assertThat(snapshots.current().orElseThrow().snapshotId()).isEqualTo(staged);
    assertThat(events.query().count()).isEqualTo(15);
  }

  @Test
  void fastForward_notAnAncestor_fails() {
    appendRows(0, 10);
    snapshots.createBranch("audit", ids.get(0));
    long staged = appendToBranch("audit", 100, 5);
    appendRows(200, 5); // main moved on
    long main = currentSnapshotId(events);

    assertThatThrownBy(() -> snapshots.publish("audit"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot fast-forward branch main to audit: snapshot " + main + " is not an ancestor of " + staged);
  }

  @Test
  void fastForward_unknownTarget_fails() {
    appendRows(0, 10);

    assertThatThrownBy(() -> snapshots.fastForward("main", "nope"))
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot fast-forward branch main: unknown ref: nope");
  }

  @Test
  void cherryPick_appliesABranchAppendOnMain() {
    appendRows(0, 10);
    snapshots.createBranch("audit", ids.get(0));
    long staged = appendToBranch("audit", 100, 5);
    appendRows(200, 5);

    var picked = snapshots.cherryPick(staged);

    assertThat(picked.current()).isTrue();
    assertThat(picked.snapshotId()).isNotEqualTo(staged);
    assertThat(events.query().count()).isEqualTo(20);
  }

  @Test
  void cherryPick_unknownSnapshot_fails() {
    appendRows(0, 10);

    assertThatThrownBy(() -> snapshots.cherryPick(42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot cherry-pick: unknown snapshot id: 42");
  }

  @Test
  void retention_isSetPerRefAndListed() {
    appendRows(0, 10);
    snapshots.createBranch("dev", ids.get(0));
    snapshots.createTag("v1", ids.get(0));

    snapshots.setMinSnapshotsToKeep("dev", 5);
    snapshots.setMaxSnapshotAge("dev", Duration.ofDays(2));
    snapshots.setMaxRefAge("v1", Duration.ofDays(30));

    assertThat(snapshots.refInfos()).containsExactly(
        new RefInfo("dev", RefInfo.Type.BRANCH, ids.get(0), OptionalInt.of(5), Optional.of(Duration.ofDays(2)), Optional.empty()),
        new RefInfo("main", RefInfo.Type.BRANCH, ids.get(0), OptionalInt.empty(), Optional.empty(), Optional.empty()),
        new RefInfo("v1", RefInfo.Type.TAG, ids.get(0), OptionalInt.empty(), Optional.empty(), Optional.of(Duration.ofDays(30))));
  }

  @Test
  void retention_minSnapshotsBelowOne_fails() {
    assertThatThrownBy(() -> snapshots.setMinSnapshotsToKeep("dev", 0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set min snapshots to keep of branch dev: count must be at least 1: 0");
  }

  @Test
  void diff_rowsFilesAndSchemaChanges() {
    appendRows(0, 10);
    appendRows(10, 20);
    events.unwrap(Table.class).newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();
    events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "c").renameColumn("feature_b", "feature_b2").commit();
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(TestTables.record(events, "entity_id", 100L + i, "event_time",
          java.time.OffsetDateTime.parse("2026-01-01T00:00:00Z"), "feature_b2", 1.0, "feature_c", 2.0));
    }
    files.addAll(append(events, rows));
    ids.add(currentSnapshotId(events));

    SnapshotDiff diff = snapshots.diff(ids.get(0), ids.get(2));

    assertThat(diff.addedRows()).isEqualTo(25);
    assertThat(diff.removedRows()).isEqualTo(10);
    assertThat(diff.addedDataFiles()).containsExactlyInAnyOrder(files.get(1).location(), files.get(2).location());
    assertThat(diff.removedDataFiles()).containsExactly(files.get(0).location());
    assertThat(diff.schemaChanges()).containsExactly(
        new ColumnChange(Kind.RENAMED, 4, "feature_b", "feature_b2", "double", "double"),
        new ColumnChange(Kind.ADDED, 5, "", "feature_c", "", "double"));

    SnapshotDiff back = snapshots.diff(ids.get(2), ids.get(0));
    assertThat(back.addedRows()).isEqualTo(10);
    assertThat(back.removedRows()).isEqualTo(25);
    assertThat(back.removedDataFiles()).hasSize(2);
  }

  @Test
  void diff_unknownSnapshot_fails() {
    appendRows(0, 10);

    assertThatThrownBy(() -> snapshots.diff(ids.get(0), 42L))
        .isInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot diff snapshots: unknown snapshot id: 42");
  }
}
