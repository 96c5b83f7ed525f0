package dev.featurestore.core.snapshot;

import static java.util.Objects.requireNonNull;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotManager;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.TableHandle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
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
    requireNonNull(time, "time is null");
    Table table = refreshed();
    Snapshot snapshot = table.snapshot(snapshotIdAsOf(table, time, "Cannot find snapshot"));
    return info(snapshot, table.currentSnapshot());
  }

  @Override
  public SnapshotInfo rollbackTo(long snapshotId) {
    return handle.commitLocked(() -> {
      Table table = handle.table();
      rollbackLocked(table, snapshotId);
      return info(table.snapshot(snapshotId), table.currentSnapshot());
    });
  }

  @Override
  public SnapshotInfo rollbackToTime(Instant time) {
    requireNonNull(time, "time is null");
    return handle.commitLocked(() -> {
      Table table = handle.table();
      long snapshotId = snapshotIdAsOf(table, time, "Cannot roll back");
      rollbackLocked(table, snapshotId);
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

  private void createRef(String kind, String name, long snapshotId) {
    requireNonNull(name, "name is null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("Cannot create " + kind + ": name is blank: '" + name + "'");
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
