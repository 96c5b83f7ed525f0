package dev.featurestore.spark;

import dev.featurestore.ExpireResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.ExpireSnapshots;
import org.apache.iceberg.io.FileIO;

/**
 * {@link SnapshotExpiry} as Iceberg's Spark {@code expireSnapshots} (the files no remaining
 * snapshot needs are found by a Spark job), with the library's rules: something must be selected,
 * a named snapshot must exist and no ref may hold it, refs' own retention is kept, and without a
 * time only {@code retainLast} decides (not the table's max snapshot age). Freed bytes are summed
 * from each deleted file's length, read just before it is deleted.
 */
final class SparkSnapshotExpiry implements SnapshotExpiry {
  private final SparkTableMaintenance maintenance;
  private Integer retainLast;
  private Instant olderThan;
  private final Set<Long> snapshotIds = new LinkedHashSet<>();
  private boolean deleteFiles = true;
  private boolean used;

  SparkSnapshotExpiry(SparkTableMaintenance maintenance) {
    this.maintenance = maintenance;
  }

  @Override
  public SnapshotExpiry retainLast(int count) {
    InvalidArgumentException.check(count >= 1, "Cannot retain last snapshots: count must be at least 1: %s", count);
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
      throw new InvalidStateException("Cannot execute snapshot expiry of table " + maintenance.id() + ": already executed");
    }
    if (retainLast == null && olderThan == null && snapshotIds.isEmpty()) {
      throw new InvalidArgumentException(
          "Cannot expire snapshots: nothing selected: set retainLast, olderThan or expireSnapshotId");
    }
    used = true;
    return maintenance.run("expire snapshots", () -> {
      Table table = maintenance.table();
      for (long id : snapshotIds) {
        checkExpirable(table, id);
      }
      Set<Long> before = new LinkedHashSet<>();
      table.snapshots().forEach(s -> before.add(s.snapshotId()));
      FileIO io = table.io();
      AtomicLong bytes = new AtomicLong();
      ExpireSnapshots expire = maintenance.actions().expireSnapshots(table)
          .expireOlderThan(olderThan != null ? olderThan.toEpochMilli()
              : retainLast != null ? System.currentTimeMillis() + 1 : Long.MIN_VALUE)
          .deleteWith(location -> {
            if (deleteFiles) {
              bytes.addAndGet(lengthOrZero(io, location));
              io.deleteFile(location);
            }
          });
      if (retainLast != null) {
        expire = expire.retainLast(retainLast);
      }
      for (long id : snapshotIds) {
        expire = expire.expireSnapshotId(id);
      }
      ExpireSnapshots.Result result = expire.execute();
      table.refresh();
      table.snapshots().forEach(s -> before.remove(s.snapshotId()));
      List<Long> expired = new ArrayList<>(before);
      ExpireResult expiry = !deleteFiles ? new ExpireResult(expired, 0, 0, 0, 0, 0, 0)
          : new ExpireResult(expired, result.deletedDataFilesCount(),
              result.deletedEqualityDeleteFilesCount() + result.deletedPositionDeleteFilesCount(),
              result.deletedManifestsCount(), result.deletedManifestListsCount(), result.deletedStatisticsFilesCount(),
              bytes.get());
      if (!expired.isEmpty()) {
        maintenance.record("expire_snapshots", null, Map.of("expired_snapshot_ids", expiry.expiredSnapshotIds(),
            "deleted_files", expiry.deletedFiles(), "bytes_freed", expiry.bytesFreed()));
      }
      return expiry;
    });
  }

  private static void checkExpirable(Table table, long id) {
    Snapshot snapshot = table.snapshot(id);
    if (snapshot == null) {
      throw new SnapshotNotFoundException("Cannot expire snapshot: unknown snapshot id: " + id);
    }
    List<String> holders = new ArrayList<>();
    for (Map.Entry<String, SnapshotRef> ref : new TreeMap<>(table.refs()).entrySet()) {
      if (ref.getValue().snapshotId() == id) {
        holders.add((ref.getValue().isBranch() ? "branch " : "tag ") + ref.getKey());
      }
    }
    if (!holders.isEmpty()) {
      throw new ValidationException("Cannot expire snapshot " + id + ": it is held by " + String.join(", ", holders)
          + ": remove or move the ref first");
    }
  }

  static long lengthOrZero(FileIO io, String location) {
    try {
      return io.newInputFile(location).getLength();
    } catch (RuntimeException e) {
      return 0; // already gone: nothing freed by this delete
    }
  }
}
