package dev.featurestore.core.maintenance;


import dev.featurestore.ExpireResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;

/**
 * Expires snapshots with Iceberg's {@code ExpireSnapshots} (which never removes what a ref's
 * retention keeps, and deletes only files unreachable from every remaining snapshot), counting
 * each file it deletes by kind and size before deleting it.
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
    Set<Long> before = new LinkedHashSet<>(); // commit order
    Set<String> manifestLists = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      before.add(snapshot.snapshotId());
      if (snapshot.manifestListLocation() != null) {
        manifestLists.add(snapshot.manifestListLocation());
      }
    }
    FileCounter counter = new FileCounter(handle.io(), manifestLists,
        deleteFiles ? deleteFileLocations(table) : Set.of());
    ExpireSnapshots expire = table.expireSnapshots()
        .cleanExpiredFiles(deleteFiles)
        .deleteWith(counter::delete)
        // manifests are read and files deleted (each after a size lookup) on the store's workers
        .executeDeleteWith(handle.workers())
        .planWith(handle.workers())
        // without an explicit time Iceberg would also expire by the table's max snapshot age
        .expireOlderThan(olderThan != null ? olderThan.toEpochMilli()
            : retainLast != null ? System.currentTimeMillis() + 1 : Long.MIN_VALUE);
    if (retainLast != null) {
      expire.retainLast(retainLast);
    }
    snapshotIds.forEach(expire::expireSnapshotId);
    List<Snapshot> toExpire = expire.apply();
    if (toExpire.isEmpty()) {
      return counter.result(List.of());
    }
    if (snapshotIds.isEmpty()) {
      // Naming a snapshot makes Iceberg clean by reachability from every remaining snapshot, so a
      // file is deleted as soon as nothing needs it (the incremental strategy waits until the
      // snapshot that removed it expires too). The snapshot is one this expiry removes anyway.
      expire.expireSnapshotId(toExpire.get(0).snapshotId());
    }
    expire.commit();
    table.refresh();
    for (Snapshot snapshot : table.snapshots()) {
      before.remove(snapshot.snapshotId());
    }
    List<Long> expired = new ArrayList<>(before);
    LOG.info("Expired {} snapshot(s) of table {}", expired.size(), handle.id());
    ExpireResult result = counter.result(expired);
    handle.record("expire_snapshots", null, java.util.Map.of("expired_snapshot_ids", result.expiredSnapshotIds(),
        "deleted_files", result.deletedFiles(), "bytes_freed", result.bytesFreed()));
    return result;
  }

  /** Locations of the delete files of every known snapshot, so deleted files can be told apart. */
  private Set<String> deleteFileLocations(Table table) {
    Set<String> locations = new HashSet<>();
    boolean anyDeletes = false;
    for (Snapshot snapshot : table.snapshots()) {
      Map<String, String> summary = snapshot.summary();
      if (summary != null && (summary.containsKey(SnapshotSummary.ADDED_DELETE_FILES_PROP)
          || !"0".equals(summary.getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "0")))) {
        anyDeletes = true;
        break;
      }
    }
    if (!anyDeletes) {
      return locations;
    }
    Set<String> seen = new HashSet<>();
    FileIO io = table.io();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.deleteManifests(io)) {
        if (seen.add(manifest.path())) {
          try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
            reader.forEach(file -> locations.add(file.location()));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
    }
    return locations;
  }

  /** Classifies and sizes each file before deleting it. Called from Iceberg's cleanup threads. */
  static final class FileCounter {
    private final FileIO io;
    private final Set<String> manifestLists;
    private final Set<String> deleteFiles;
    private long data;
    private long deletes;
    private long manifests;
    private long lists;
    private long other;
    private long bytes;

    FileCounter(FileIO io, Set<String> manifestLists, Set<String> deleteFiles) {
      this.io = io;
      this.manifestLists = manifestLists;
      this.deleteFiles = deleteFiles;
    }

    void delete(String location) {
      long size = 0;
      try {
        size = io.newInputFile(location).getLength();
      } catch (RuntimeException e) {
        // already gone: count it, nothing to free
      }
      io.deleteFile(location);
      synchronized (this) {
        bytes += size;
        if (manifestLists.contains(location)) {
          lists++;
        } else if (deleteFiles.contains(location)) {
          deletes++;
        } else if (location.endsWith(".avro")) {
          manifests++;
        } else if (location.endsWith(".stats") || location.endsWith(".puffin")) {
          other++;
        } else {
          data++;
        }
      }
    }

    synchronized ExpireResult result(List<Long> expired) {
      return new ExpireResult(expired, data, deletes, manifests, lists, other, bytes);
    }
  }
}
