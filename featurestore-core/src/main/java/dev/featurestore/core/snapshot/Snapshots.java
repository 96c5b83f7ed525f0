package dev.featurestore.core.snapshot;

import static java.util.Objects.requireNonNull;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.RefInfo;
import dev.featurestore.SnapshotDiff;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotManager;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshot history of one table, and the operations that move its {@code main} branch or add
 * refs, on top of Iceberg's {@code ManageSnapshots}.
 *
 * <pre>{@code
 * SnapshotManager snapshots = new Snapshots(handle);
 * long first = snapshots.history().get(0).snapshotId();
 * snapshots.createTag("before-backfill", first);
 * snapshots.rollbackTo(first);
 * }</pre>
 *
 * <p>Reads refresh the table first. Every change runs under the table's commit lock, after a
 * refresh, and checks its preconditions there, so a check and the commit it guards see the same
 * metadata (within this store; other stores are reconciled by Iceberg's optimistic commit).
 *
 * <p>Thread safety: safe for concurrent use; it holds no state besides the table handle.
 */
public final class Snapshots implements SnapshotManager {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshots.class);

  private final TableHandle handle;

  public Snapshots(TableHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
  }

  @Override
  public List<SnapshotInfo> history() {
    Table table = refreshed();
    Snapshot current = table.currentSnapshot();
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber)
        .thenComparingLong(Snapshot::timestampMillis)
        .thenComparingLong(Snapshot::snapshotId));
    List<SnapshotInfo> infos = new ArrayList<>(snapshots.size());
    for (Snapshot snapshot : snapshots) {
      infos.add(info(snapshot, current));
    }
    return infos;
  }

  @Override
  public Optional<SnapshotInfo> current() {
    Table table = refreshed();
    Snapshot current = table.currentSnapshot();
    return current == null ? Optional.empty() : Optional.of(info(current, current));
  }

  @Override
  public SnapshotInfo snapshot(long snapshotId) {
    Table table = refreshed();
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new SnapshotNotFoundException("Cannot find snapshot: unknown snapshot id: " + snapshotId);
    }
    return info(snapshot, table.currentSnapshot());
  }

  @Override
  public SnapshotInfo snapshotAsOf(Instant time) {
    InvalidArgumentException.requireNonNull(time, "find snapshot", "time");
    Table table = refreshed();
    Snapshot snapshot = table.snapshot(snapshotIdAsOf(table, time, "Cannot find snapshot"));
    return info(snapshot, table.currentSnapshot());
  }

  @Override
  public SnapshotInfo rollbackTo(long snapshotId) {
    return handle.commitLocked(() -> {
      Table table = handle.table();
      rollbackLocked(table, snapshotId);
      handle.record("rollback", snapshotId, Map.of("to_snapshot_id", snapshotId));
      return info(table.snapshot(snapshotId), table.currentSnapshot());
    });
  }

  @Override
  public SnapshotInfo rollbackToTime(Instant time) {
    InvalidArgumentException.requireNonNull(time, "roll back table", "time");
    return handle.commitLocked(() -> {
      Table table = handle.table();
      long snapshotId = snapshotIdAsOf(table, time, "Cannot roll back");
      rollbackLocked(table, snapshotId);
      handle.record("rollback", snapshotId, Map.of("to_snapshot_id", snapshotId, "as_of", time.toString()));
      return info(table.snapshot(snapshotId), table.currentSnapshot());
    });
  }

  @Override
  public SnapshotInfo setCurrent(long snapshotId) {
    return handle.commitLocked(() -> {
      Table table = handle.table();
      if (table.snapshot(snapshotId) == null) {
        throw new SnapshotNotFoundException("Cannot set current snapshot: unknown snapshot id: " + snapshotId);
      }
      Snapshot current = table.currentSnapshot();
      if (current == null || current.snapshotId() != snapshotId) {
        table.manageSnapshots().setCurrentSnapshot(snapshotId).commit();
        LOG.info("Set current snapshot of table {} to {}", handle.id(), snapshotId);
        handle.record("set_current_snapshot", snapshotId, Map.of("to_snapshot_id", snapshotId));
      }
      return info(table.snapshot(snapshotId), table.currentSnapshot());
    });
  }

  @Override
  public void createTag(String name, long snapshotId) {
    createRef("tag", name, snapshotId);
  }

  @Override
  public void createBranch(String name, long snapshotId) {
    createRef("branch", name, snapshotId);
  }

  @Override
  public Map<String, Long> refs() {
    Table table = refreshed();
    Map<String, Long> refs = new TreeMap<>();
    for (Map.Entry<String, SnapshotRef> ref : table.refs().entrySet()) {
      refs.put(ref.getKey(), ref.getValue().snapshotId());
    }
    return refs;
  }

  @Override
  public void replaceTag(String name, long snapshotId) {
    InvalidArgumentException.requireNonNull(name, "replace tag", "name");
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, name, false, "Cannot replace tag");
      requireSnapshot(table, snapshotId, "Cannot replace tag " + name);
      table.manageSnapshots().replaceTag(name, snapshotId).commit();
      handle.record("replace_tag", null, Map.of("tag", name, "snapshot_id", snapshotId));
      return null;
    });
  }

  @Override
  public void replaceBranch(String name, long snapshotId) {
    InvalidArgumentException.requireNonNull(name, "replace branch", "name");
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, name, true, "Cannot replace branch");
      requireSnapshot(table, snapshotId, "Cannot replace branch " + name);
      table.manageSnapshots().replaceBranch(name, snapshotId).commit();
      handle.record("replace_branch", null, Map.of("branch", name, "snapshot_id", snapshotId));
      return null;
    });
  }

  @Override
  public void renameBranch(String name, String newName) {
    InvalidArgumentException.requireNonNull(name, "rename branch", "name");
    InvalidArgumentException.requireNonNull(newName, "rename branch", "newName");
    if (newName.isBlank()) {
      throw new InvalidArgumentException("Cannot rename branch " + name + ": new name is blank: '" + newName + "'");
    }
    if (name.equals(SnapshotRef.MAIN_BRANCH)) {
      throw new ValidationException("Cannot rename branch: main cannot be renamed: " + name);
    }
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, name, true, "Cannot rename branch");
      if (table.refs().containsKey(newName)) {
        throw new AlreadyExistsException("Cannot rename branch " + name + ": ref already exists: " + newName);
      }
      table.manageSnapshots().renameBranch(name, newName).commit();
      handle.record("rename_branch", null, Map.of("branch", name, "new_name", newName));
      return null;
    });
  }

  @Override
  public void removeTag(String name) {
    InvalidArgumentException.requireNonNull(name, "remove tag", "name");
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, name, false, "Cannot remove tag");
      table.manageSnapshots().removeTag(name).commit();
      handle.record("remove_tag", null, Map.of("tag", name));
      return null;
    });
  }

  @Override
  public void removeBranch(String name) {
    InvalidArgumentException.requireNonNull(name, "remove branch", "name");
    if (name.equals(SnapshotRef.MAIN_BRANCH)) {
      throw new ValidationException("Cannot remove branch: main cannot be removed: " + name);
    }
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, name, true, "Cannot remove branch");
      table.manageSnapshots().removeBranch(name).commit();
      handle.record("remove_branch", null, Map.of("branch", name));
      return null;
    });
  }

  @Override
  public SnapshotInfo fastForward(String branch, String to) {
    InvalidArgumentException.requireNonNull(branch, "fast-forward branch", "branch");
    InvalidArgumentException.requireNonNull(to, "fast-forward branch", "to");
    return handle.commitLocked(() -> {
      Table table = handle.table();
      SnapshotRef from = requireRef(table, branch, true, "Cannot fast-forward branch");
      SnapshotRef target = table.refs().get(to);
      if (target == null) {
        throw new NotFoundException("Cannot fast-forward branch " + branch + ": unknown ref: " + to);
      }
      if (from.snapshotId() != target.snapshotId()) {
        if (!SnapshotUtil.isAncestorOf(table, target.snapshotId(), from.snapshotId())) {
          throw new ValidationException("Cannot fast-forward branch " + branch + " to " + to + ": snapshot "
              + from.snapshotId() + " is not an ancestor of " + target.snapshotId());
        }
        table.manageSnapshots().fastForwardBranch(branch, to).commit();
        handle.record("fast_forward", target.snapshotId(), Map.of("branch", branch, "to", to));
      }
      return info(table.snapshot(target.snapshotId()), table.currentSnapshot());
    });
  }

  @Override
  public SnapshotInfo cherryPick(long snapshotId) {
    return handle.commitLocked(() -> {
      Table table = handle.table();
      requireSnapshot(table, snapshotId, "Cannot cherry-pick");
      Snapshot before = table.currentSnapshot();
      try {
        table.manageSnapshots().cherrypick(snapshotId).commit();
      } catch (org.apache.iceberg.exceptions.ValidationException e) {
        throw new ValidationException("Cannot cherry-pick snapshot " + snapshotId + ": " + e.getMessage(), e);
      }
      table.refresh();
      Snapshot current = table.currentSnapshot();
      if (before != null && current.snapshotId() == before.snapshotId()) {
        throw new ValidationException("Cannot cherry-pick snapshot " + snapshotId + ": nothing to apply");
      }
      handle.record("cherry_pick", current.snapshotId(), Map.of("picked_snapshot_id", snapshotId));
      return info(current, current);
    });
  }

  @Override
  public void setMinSnapshotsToKeep(String branch, int count) {
    InvalidArgumentException.requireNonNull(branch, "set min snapshots to keep", "branch");
    if (count < 1) {
      throw new InvalidArgumentException("Cannot set min snapshots to keep of branch " + branch
          + ": count must be at least 1: " + count);
    }
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, branch, true, "Cannot set min snapshots to keep");
      table.manageSnapshots().setMinSnapshotsToKeep(branch, count).commit();
      handle.record("set_retention", null, Map.of("branch", branch, "min_snapshots_to_keep", count));
      return null;
    });
  }

  @Override
  public void setMaxSnapshotAge(String branch, Duration age) {
    InvalidArgumentException.requireNonNull(branch, "set max snapshot age", "branch");
    long ms = positiveMillis(age, "Cannot set max snapshot age of branch " + branch);
    handle.commitLocked(() -> {
      Table table = handle.table();
      requireRef(table, branch, true, "Cannot set max snapshot age");
      table.manageSnapshots().setMaxSnapshotAgeMs(branch, ms).commit();
      handle.record("set_retention", null, Map.of("branch", branch, "max_snapshot_age_ms", ms));
      return null;
    });
  }

  @Override
  public void setMaxRefAge(String ref, Duration age) {
    InvalidArgumentException.requireNonNull(ref, "set max ref age", "ref");
    long ms = positiveMillis(age, "Cannot set max ref age of " + ref);
    if (ref.equals(SnapshotRef.MAIN_BRANCH)) {
      throw new ValidationException("Cannot set max ref age: main is never expired: " + ref);
    }
    handle.commitLocked(() -> {
      Table table = handle.table();
      if (!table.refs().containsKey(ref)) {
        throw new NotFoundException("Cannot set max ref age: unknown ref: " + ref);
      }
      table.manageSnapshots().setMaxRefAgeMs(ref, ms).commit();
      handle.record("set_retention", null, Map.of("ref", ref, "max_ref_age_ms", ms));
      return null;
    });
  }

  @Override
  public List<RefInfo> refInfos() {
    Table table = refreshed();
    List<RefInfo> refs = new ArrayList<>();
    for (Map.Entry<String, SnapshotRef> entry : new TreeMap<>(table.refs()).entrySet()) {
      SnapshotRef ref = entry.getValue();
      refs.add(new RefInfo(entry.getKey(), ref.isBranch() ? RefInfo.Type.BRANCH : RefInfo.Type.TAG, ref.snapshotId(),
          ref.minSnapshotsToKeep() == null ? OptionalInt.empty() : OptionalInt.of(ref.minSnapshotsToKeep()),
          Optional.ofNullable(ref.maxSnapshotAgeMs()).map(Duration::ofMillis),
          Optional.ofNullable(ref.maxRefAgeMs()).map(Duration::ofMillis)));
    }
    return refs;
  }

  @Override
  public SnapshotDiff diff(long fromSnapshotId, long toSnapshotId) {
    Table table = refreshed();
    Snapshot from = table.snapshot(fromSnapshotId);
    Snapshot to = table.snapshot(toSnapshotId);
    if (from == null || to == null) {
      throw new SnapshotNotFoundException("Cannot diff snapshots: unknown snapshot id: "
          + (from == null ? fromSnapshotId : toSnapshotId));
    }
    return handle.translating("diff snapshots of table " + handle.id(), () -> Diffs.diff(table, from, to));
  }

  private static long positiveMillis(Duration age, String what) {
    if (age == null) {
      throw new InvalidArgumentException(what + ": age is null: null");
    }
    if (age.isNegative() || age.isZero()) {
      throw new InvalidArgumentException(what + ": age must be positive: " + age);
    }
    return age.toMillis();
  }

  /** The ref {@code name} of the given kind; call holding the commit lock. */
  private static SnapshotRef requireRef(Table table, String name, boolean branch, String verb) {
    SnapshotRef ref = table.refs().get(name);
    String kind = branch ? "branch" : "tag";
    if (ref == null) {
      throw new NotFoundException(verb + ": unknown " + kind + ": " + name);
    }
    if (ref.isBranch() != branch) {
      throw new ValidationException(verb + ": ref is a " + (branch ? "tag" : "branch") + ", not a " + kind + ": " + name);
    }
    return ref;
  }

  private static void requireSnapshot(Table table, long snapshotId, String verb) {
    if (table.snapshot(snapshotId) == null) {
      throw new SnapshotNotFoundException(verb + ": unknown snapshot id: " + snapshotId);
    }
  }

  private void createRef(String kind, String name, long snapshotId) {
    InvalidArgumentException.requireNonNull(name, "create " + kind, "name");
    if (name.isBlank()) {
      throw new InvalidArgumentException("Cannot create " + kind + ": name is blank: '" + name + "'");
    }
    handle.commitLocked(() -> {
      Table table = handle.table();
      if (table.refs().containsKey(name)) {
        throw new AlreadyExistsException("Cannot create " + kind + ": ref already exists: " + name);
      }
      if (table.snapshot(snapshotId) == null) {
        throw new SnapshotNotFoundException(
            "Cannot create " + kind + " " + name + ": unknown snapshot id: " + snapshotId);
      }
      if (kind.equals("tag")) {
        table.manageSnapshots().createTag(name, snapshotId).commit();
      } else {
        table.manageSnapshots().createBranch(name, snapshotId).commit();
      }
      handle.record("create_" + kind, null, Map.of(kind, name, "snapshot_id", snapshotId));
      return null;
    });
  }

  /** Rolls {@code main} back to an ancestor; call holding the commit lock. */
  private static void rollbackLocked(Table table, long snapshotId) {
    if (table.snapshot(snapshotId) == null) {
      throw new SnapshotNotFoundException("Cannot roll back to unknown snapshot: " + snapshotId);
    }
    Snapshot current = table.currentSnapshot();
    if (current.snapshotId() == snapshotId) {
      return; // already there
    }
    if (!SnapshotUtil.isAncestorOf(table, current.snapshotId(), snapshotId)) {
      throw new ValidationException("Cannot roll back to snapshot " + snapshotId
          + ": not an ancestor of the current snapshot (use setCurrent)");
    }
    table.manageSnapshots().rollbackTo(snapshotId).commit();
    LOG.info("Rolled back table {} from snapshot {} to {}", table.name(), current.snapshotId(), snapshotId);
  }

  /**
   * The snapshot that was current on {@code main} at {@code time}, by the table's snapshot log
   * (Iceberg's {@code SnapshotUtil.snapshotIdAsOfTime}).
   */
  static long snapshotIdAsOf(Table table, Instant time, String verb) {
    Long id = SnapshotUtil.nullableSnapshotIdAsOfTime(table, time.toEpochMilli());
    if (id == null || table.snapshot(id) == null) {
      throw new SnapshotNotFoundException(verb + ": time is before the first snapshot: " + time);
    }
    return id;
  }

  private Table refreshed() {
    return handle.translating("refresh table " + handle.id(), handle::refreshed);
  }

  static SnapshotInfo info(Snapshot snapshot, Snapshot current) {
    Map<String, String> summary = snapshot.summary() == null ? Map.of() : snapshot.summary();
    Long parent = snapshot.parentId();
    Integer schemaId = snapshot.schemaId();
    return new SnapshotInfo(
        snapshot.snapshotId(),
        parent == null ? OptionalLong.empty() : OptionalLong.of(parent),
        Instant.ofEpochMilli(snapshot.timestampMillis()),
        snapshot.operation() == null ? "unknown" : snapshot.operation(),
        schemaId == null ? -1 : schemaId,
        number(summary, SnapshotSummary.ADDED_RECORDS_PROP),
        number(summary, SnapshotSummary.DELETED_RECORDS_PROP),
        number(summary, SnapshotSummary.TOTAL_RECORDS_PROP),
        number(summary, SnapshotSummary.ADDED_FILES_PROP),
        number(summary, SnapshotSummary.DELETED_FILES_PROP),
        number(summary, SnapshotSummary.ADDED_FILE_SIZE_PROP),
        number(summary, SnapshotSummary.REMOVED_FILE_SIZE_PROP),
        current != null && current.snapshotId() == snapshot.snapshotId(),
        summary);
  }

  private static long number(Map<String, String> summary, String key) {
    String value = summary.get(key);
    if (value == null) {
      return 0L;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }

  @Override
  public String toString() {
    return "Snapshots{" + handle.id() + "}";
  }
}
