package dev.featurestore.core.maintenance;


import dev.featurestore.ExpireResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.StorageException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.catalog.ForwardingTableOperations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires snapshots: Iceberg's {@code ExpireSnapshots} decides which snapshots go (never what a
 * ref's retention keeps) and commits the metadata; {@link ExpiredFiles} finds every file no
 * remaining snapshot can reach before that commit (so an unreadable manifest of a remaining
 * snapshot fails the expiry with the table unchanged) and deletes them after it, counted by kind
 * and size.
 */
final class ExpireOperation implements SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(ExpireOperation.class);

  private final TableHandle handle;
  private Integer retainLast;
  private Instant olderThan;
  private final Set<Long> snapshotIds = new LinkedHashSet<>();
  private boolean deleteFiles = true;
  private boolean used = false;

  ExpireOperation(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public SnapshotExpiry retainLast(int count) {
    if (count < 1) {
      throw new InvalidArgumentException("Cannot retain last snapshots: count must be at least 1: " + count);
    }
    this.retainLast = count;
    return this;
  }

  @Override
  public SnapshotExpiry olderThan(Instant time) {
    this.olderThan = InvalidArgumentException.requireNonNull(time, "expire snapshots", "time");
    return this;
  }

  @Override
  public SnapshotExpiry expireSnapshotId(long snapshotId) {
    snapshotIds.add(snapshotId);
    return this;
  }

  @Override
  public SnapshotExpiry deleteFiles(boolean deleteFiles) {
    this.deleteFiles = deleteFiles;
    return this;
  }

  @Override
  public ExpireResult execute() {
    if (used) {
      throw new InvalidStateException("Cannot execute snapshot expiry of table " + handle.id() + ": already executed");
    }
    if (retainLast == null && olderThan == null && snapshotIds.isEmpty()) {
      throw new InvalidArgumentException(
          "Cannot expire snapshots: nothing selected: set retainLast, olderThan or expireSnapshotId");
    }
    used = true;
    return handle.commitLocked(() -> expireLocked(handle.table()));
  }

  private ExpireResult expireLocked(Table table) {
    for (long id : snapshotIds) {
      if (table.snapshot(id) == null) {
        throw new SnapshotNotFoundException("Cannot expire snapshot: unknown snapshot id: " + id);
      }
      List<String> holders = new ArrayList<>();
      for (Map.Entry<String, SnapshotRef> ref : new TreeMap<>(table.refs()).entrySet()) {
        if (ref.getValue().snapshotId() == id) {
          holders.add((ref.getValue().isBranch() ? "branch " : "tag ") + ref.getKey());
        }
      }
      if (!holders.isEmpty()) {
        throw new ValidationException("Cannot expire snapshot " + id + ": it is held by "
            + String.join(", ", holders) + ": remove or move the ref first");
      }
    }
    CommittedBase ops = new CommittedBase(((HasTableOperations) table).operations(), deleteFiles);
    ExpireSnapshots expire = new BaseTable(ops, table.name()).expireSnapshots()
        // files are found and deleted below, from the metadata before and after the commit
        .cleanExpiredFiles(false)
        // without an explicit time Iceberg would also expire by the table's max snapshot age
        .expireOlderThan(olderThan != null ? olderThan.toEpochMilli()
            : retainLast != null ? System.currentTimeMillis() + 1 : Long.MIN_VALUE);
    if (retainLast != null) {
      expire.retainLast(retainLast);
    }
    snapshotIds.forEach(expire::expireSnapshotId);
    List<Snapshot> going = expire.apply();
    if (going.isEmpty()) {
      return new ExpireResult(List.of(), 0, 0, 0, 0, 0, 0);
    }
    try {
      ops.planFor(going); // the metadata apply() refreshed is the base the commit is tried on first
      expire.commit();
    } catch (ExpiredFiles.ReachabilityUnknown e) {
      throw new StorageException("Cannot expire snapshots of table " + handle.id() + ": a metadata file of a "
          + "remaining snapshot cannot be read, so which files would still be reachable is unknown; nothing was "
          + "expired or deleted: " + e.location(), e.getCause());
    }
    table.refresh();
    TableMetadata before = ops.committedBase();
    TableMetadata after = ((HasTableOperations) table).operations().current();
    if (before == null) {
      return new ExpireResult(List.of(), 0, 0, 0, 0, 0, 0); // nothing changed, nothing committed
    }
    Set<Long> remaining = new HashSet<>();
    after.snapshots().forEach(s -> remaining.add(s.snapshotId()));
    List<Long> expired = new ArrayList<>();
    for (Snapshot snapshot : before.snapshots()) { // commit order
      if (!remaining.contains(snapshot.snapshotId())) {
        expired.add(snapshot.snapshotId());
      }
    }
    ExpiredFiles.Deleted deleted = deleteFiles
        ? ExpiredFiles.delete(ops.plan(), before, after, handle.io(), handle.workers()) : ExpiredFiles.Deleted.NONE;
    LOG.info("Expired {} snapshot(s) of table {}", expired.size(), handle.id());
    ExpireResult result = new ExpireResult(expired, deleted.dataFiles(), deleted.deleteFiles(), deleted.manifests(),
        deleted.manifestLists(), deleted.otherFiles(), deleted.bytes());
    Map<String, Object> details = new java.util.LinkedHashMap<>(Map.of("expired_snapshot_ids",
        result.expiredSnapshotIds(), "deleted_files", result.deletedFiles(), "bytes_freed", result.bytesFreed()));
    if (!deleted.unread().isEmpty()) {
      // files only these reference stay on storage: orphans for orphan-file removal
      LOG.warn("Expired snapshots of table {}: {} metadata file(s) of expired snapshots could not be read; the files "
          + "only they reference stay on storage: {}", handle.id(), deleted.unread().size(), deleted.unread());
      details.put("unread_expired_metadata", deleted.unread());
    }
    handle.record("expire_snapshots", null, details);
    return result;
  }

  /**
   * The table's operations, remembering the metadata the commit that landed was applied to (Iceberg
   * retries an expiry on a conflict from a fresh base): the "before" the files are compared with.
   * When files are to be deleted, each attempt commits only with the plan of the files its own
   * base and new metadata leave unreachable: the plan made before the commit if the snapshots are
   * the same, else a new one; a plan that cannot be made (a remaining snapshot's manifest list or
   * manifest does not read) fails the attempt before it commits, and Iceberg does not retry it.
   */
  private final class CommittedBase extends ForwardingTableOperations {
    private final boolean planning;
    private volatile ExpiredFiles.Plan plan;
    private volatile TableMetadata committedBase;

    CommittedBase(TableOperations delegate, boolean planning) {
      super(delegate);
      this.planning = planning;
    }

    /** Plans the files expiring {@code going} from the current metadata leaves unreachable (if planning). */
    void planFor(List<Snapshot> going) {
      if (planning) {
        TableMetadata base = current();
        Set<Long> goingIds = new HashSet<>();
        going.forEach(s -> goingIds.add(s.snapshotId()));
        List<Snapshot> remaining = base.snapshots().stream().filter(s -> !goingIds.contains(s.snapshotId())).toList();
        plan = ExpiredFiles.plan(base, remaining, handle.io(), handle.workers());
      }
    }

    /** The plan of the commit that landed. */
    ExpiredFiles.Plan plan() {
      return plan;
    }

    TableMetadata committedBase() {
      return committedBase;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (planning && base != metadata && (plan == null || !plan.isFor(base, metadata))) {
        plan = ExpiredFiles.plan(base, metadata.snapshots(), handle.io(), handle.workers());
      }
      super.commit(base, metadata);
      if (base != metadata) {
        committedBase = base;
      }
    }
  }
}
