package dev.featurestore.core;

import dev.featurestore.DeleteResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.ForgetResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.RowDeletion;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.core.base.RowDeleteCommit;
import dev.featurestore.core.base.RowMatches;
import dev.featurestore.core.base.RowRewriteCommit;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.lookup.KeyRows;
import dev.featurestore.core.maintenance.Maintenance;
import dev.featurestore.core.query.FilterRows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The table's {@link RowDeletion}: wires a finder (by filter: the query concern; by keys: the
 * lookup concern) to the floor's delete commit, and for {@link #forget()} to the rewrite commit
 * and the maintenance concern's snapshot expiry. Runs under the table's commit lock.
 */
final class RowDeletionOperation implements RowDeletion {
  private static final String DELETE = "delete rows";

  private final TableHandle handle;
  private Expression filter;
  private String keyColumn;
  private List<Object> keys;
  private Runnable beforeCommit = () -> {};
  private boolean used = false;

  RowDeletionOperation(TableHandle handle) {
    this.handle = handle;
  }

  /** Test seam: runs just before the row delta commits (a concurrent commit lands there). */
  RowDeletionOperation beforeCommit(Runnable action) {
    this.beforeCommit = action;
    return this;
  }

  @Override
  public RowDeletion where(Expression more) {
    InvalidArgumentException.requireNonNull(more, DELETE, "filter");
    InvalidArgumentException.check(keyColumn == null,
        "Cannot delete rows of table %s: keys already given; combine with a filter through where(Expressions.in(...)): %s",
        handle.id(), more);
    filter = filter == null ? more : Expressions.and(filter, more);
    return this;
  }

  @Override
  public RowDeletion keys(String column, Collection<?> values) {
    InvalidArgumentException.requireNonNull(column, DELETE, "column");
    InvalidArgumentException.requireNonNull(values, DELETE, "keys");
    InvalidArgumentException.check(filter == null && keyColumn == null,
        "Cannot delete rows of table %s: a filter or keys already given; give one selection: %s", handle.id(), column);
    List<Object> copy = new ArrayList<>(values.size());
    for (Object key : values) {
      copy.add(InvalidArgumentException.requireNonNull(key, DELETE, "key"));
    }
    KeyRows.checkColumn(handle, column);
    KeyRows.checkKeys(handle, column, copy);
    this.keyColumn = column;
    this.keys = List.copyOf(copy);
    return this;
  }

  @Override
  public DeleteResult dryRun() {
    start("preview");
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return empty(true);
    }
    return handle.translating("delete rows of table " + handle.id(),
        () -> RowDeleteCommit.preview(table, find(table, base, true)));
  }

  @Override
  public DeleteResult execute() {
    start("execute");
    return handle.commitLocked(() -> {
      Table table = handle.table();
      Snapshot base = table.currentSnapshot();
      if (base == null) {
        return empty(false);
      }
      return RowDeleteCommit.commit(handle, table, base, find(table, base, true), beforeCommit);
    });
  }

  @Override
  public ForgetResult forget() {
    start("forget");
    return handle.commitLocked(() -> {
      Table table = handle.table();
      Snapshot base = table.currentSnapshot();
      if (base == null) {
        return new ForgetResult(OptionalLong.empty(), 0, 0, 0, List.of(), noExpiry(), Map.of());
      }
      RowRewriteCommit.Rewritten rewritten =
          RowRewriteCommit.commit(handle, table, base, find(table, base, false), beforeCommit);
      table.refresh();
      long current = table.currentSnapshot().snapshotId();
      Map<Long, List<String>> refsBySnapshot = new TreeMap<>();
      for (Map.Entry<String, SnapshotRef> ref : table.refs().entrySet()) {
        refsBySnapshot.computeIfAbsent(ref.getValue().snapshotId(), id -> new ArrayList<>()).add(ref.getKey());
      }
      Map<String, Long> heldByRefs = new TreeMap<>();
      List<Long> holding = new ArrayList<>();
      for (Snapshot snapshot : table.snapshots()) {
        if (snapshot.snapshotId() == current || find(table, snapshot, false).files().isEmpty()) {
          continue;
        }
        List<String> refs = refsBySnapshot.get(snapshot.snapshotId());
        if (refs != null) {
          refs.forEach(name -> heldByRefs.put(name, snapshot.snapshotId()));
        } else {
          holding.add(snapshot.snapshotId());
        }
      }
      ExpireResult expiry = noExpiry();
      if (!holding.isEmpty()) {
        SnapshotExpiry expire = new Maintenance(handle).expireSnapshots();
        holding.forEach(expire::expireSnapshotId);
        expiry = expire.execute();
      }
      return new ForgetResult(rewritten.snapshotId(), rewritten.liveRowsDeleted(), rewritten.filesRewritten(),
          rewritten.filesWritten(), expiry.expiredSnapshotIds(), expiry, heldByRefs);
    });
  }

  private void start(String verb) {
    if (used) {
      throw new InvalidStateException("Cannot " + verb + " row deletion of table " + handle.id() + ": already executed");
    }
    InvalidArgumentException.check(filter != null || keyColumn != null,
        "Cannot delete rows of table %s: nothing selected: set where(...) or keys(...): %s", handle.id(), "none");
    used = true;
  }

  private RowMatches.Found find(Table table, Snapshot snapshot, boolean applyDeletes) {
    return filter != null
        ? FilterRows.find(handle, table, snapshot, filter, applyDeletes)
        : KeyRows.find(handle, table, snapshot, keyColumn, keys, applyDeletes);
  }

  private static DeleteResult empty(boolean dryRun) {
    return new DeleteResult(OptionalLong.empty(), dryRun, 0, 0, 0, 0, 0, 0, List.of());
  }

  private static ExpireResult noExpiry() {
    return new ExpireResult(List.of(), 0, 0, 0, 0, 0, 0);
  }

  @Override
  public String toString() {
    return "RowDeletion{table=" + handle.id() + ", filter=" + filter + ", keys=" + keyColumn + "}";
  }
}
