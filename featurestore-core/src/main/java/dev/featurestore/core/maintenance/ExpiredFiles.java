package dev.featurestore.core.maintenance;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files an expiry leaves unreachable, and their deletion. Given the table's metadata the
 * expiry is applied to and the snapshots that remain: the manifest lists of the expired snapshots;
 * the manifests listed only by expired snapshots; the data and delete files live in those
 * manifests and live in no manifest of a remaining snapshot ({@link #plan}, before the expiry
 * commits, so that a reachability check that cannot be completed fails it with the table
 * unchanged); after the commit, also the statistics files only the metadata before referenced
 * ({@link #delete}).
 *
 * <p>Why this is every unreachable file and nothing more: a file is live in some manifest of each
 * snapshot that reads it, and manifests never change. A file a remaining snapshot reads is live in
 * one of its manifests, so it is never deleted. A file only expired snapshots read is live in a
 * manifest of an expired snapshot; if a remaining snapshot listed that manifest, the file would be
 * live there too, so the manifest is listed only by expired snapshots and the file is found.
 *
 * <p>Manifests are read only where they can matter: a manifest without live entries (by its
 * counts in the manifest list) holds no candidate and keeps none alive, and the remaining
 * snapshots' manifests are read only if there is a candidate. Sizes come from the metadata
 * (manifest entries, manifest lists, statistics files); only manifest lists are sized on storage.
 * Reads and deletes run on the calling thread and the store's workers; deletes go in chunks, as
 * one bulk request per chunk where the FileIO supports it.
 *
 * <p>A read that fails is tried three times (as Iceberg's cleanup does); then it depends on whose
 * file it is. A manifest list or manifest of a <em>remaining</em> snapshot that cannot be read
 * leaves the reachable set unknown: {@link #plan} throws {@link ReachabilityUnknown}, before
 * anything is committed or deleted (a file is never deleted on an incomplete reachability check). A manifest list or manifest only
 * <em>expired</em> snapshots list can only hide candidates: the files only it references stay on
 * storage (orphans, for orphan-file removal), the rest is deleted, and its location is reported in
 * {@link Deleted#unread()}. Iceberg's {@code ReachableFileCleanup} differs on a remaining manifest:
 * it logs, deletes no data files but still deletes the expired manifests and manifest lists.
 */
final class ExpiredFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ExpiredFiles.class);
  private static final int CHUNK = 250;

  /**
   * What was deleted, by kind, and the bytes it held; {@code unread}: manifest lists and manifests
   * of expired snapshots that could not be read, whose files were left on storage.
   */
  record Deleted(long dataFiles, long deleteFiles, long manifests, long manifestLists, long otherFiles, long bytes,
      List<String> unread) {
    static final Deleted NONE = new Deleted(0, 0, 0, 0, 0, 0, List.of());

    Deleted {
      unread = List.copyOf(unread);
    }
  }

  /**
   * A manifest list or manifest of a remaining snapshot could not be read: which files would still
   * be reachable is unknown, so the expiry must not commit.
   */
  static final class ReachabilityUnknown extends RuntimeException {
    private final String location;

    ReachabilityUnknown(String location, Throwable cause) {
      super("Cannot read metadata file of a remaining snapshot: " + location, cause);
      this.location = location;
    }

    /** The file that could not be read. */
    String location() {
      return location;
    }
  }

  private static final int READ_ATTEMPTS = 3;

  private enum Kind { DATA, DELETES, MANIFEST, MANIFEST_LIST, OTHER }

  /** A file to delete: its kind and, if known from the metadata, its size (else -1). */
  private record Doomed(String location, Kind kind, long size) {}

  private final FileIO io;
  private final ExecutorService workers;
  private final ManifestColumns manifests;
  /** Metadata files of expired snapshots that could not be read. */
  private final Set<String> unread = ConcurrentHashMap.newKeySet();

  private ExpiredFiles(FileIO io, ExecutorService workers, Map<Integer, PartitionSpec> specs) {
    this.io = io;
    this.workers = workers;
    this.manifests = new ManifestColumns(io, specs);
  }

  /**
   * The data, delete, manifest and manifest-list files that expiring the snapshots of {@code before}
   * not in {@code remaining} leaves unreachable, for the given snapshot sets only: the snapshots
   * and manifests are immutable, so it holds for any metadata with the same two sets of snapshot ids.
   * {@code unread}: manifest lists and manifests of expired snapshots that could not be read.
   */
  record Plan(Set<Long> beforeIds, Set<Long> remainingIds, List<Doomed> files, List<String> unread) {
    Plan {
      beforeIds = Set.copyOf(beforeIds);
      remainingIds = Set.copyOf(remainingIds);
      files = List.copyOf(files);
      unread = List.copyOf(unread);
    }

    /** Whether this plan is the one for expiring from {@code before} to {@code after}. */
    boolean isFor(TableMetadata before, TableMetadata after) {
      return beforeIds.equals(ids(before.snapshots())) && remainingIds.equals(ids(after.snapshots()));
    }
  }

  /**
   * Finds the files expiring the snapshots of {@code before} not in {@code remaining} leaves
   * unreachable, reading the manifest lists and manifests that needs; deletes nothing.
   *
   * @throws ReachabilityUnknown if a manifest list or manifest of a remaining snapshot cannot be read
   */
  static Plan plan(TableMetadata before, List<Snapshot> remaining, FileIO io, ExecutorService workers) {
    ExpiredFiles planner = new ExpiredFiles(io, workers, before.specsById());
    List<Doomed> files = planner.unreachable(before, remaining);
    if (planner.manifests.readByIceberg() > 0) {
      LOG.debug("Read {} manifest lists and manifests with Iceberg's readers", planner.manifests.readByIceberg());
    }
    return new Plan(ids(before.snapshots()), ids(remaining), files, new TreeSet<>(planner.unread).stream().toList());
  }

  /**
   * Deletes the files of {@code plan} and the statistics files {@code before} references and
   * {@code after} no longer does. Call only once {@code after} is committed; {@code before} is the
   * metadata the expiry was applied to, and {@code plan} the one for them.
   */
  static Deleted delete(Plan plan, TableMetadata before, TableMetadata after, FileIO io, ExecutorService workers) {
    if (!plan.isFor(before, after)) {
      throw new IllegalStateException("Cannot delete expired files: the plan is for other snapshots than the commit");
    }
    List<Doomed> doomed = new ArrayList<>(plan.files());
    doomed.addAll(unreferencedStatistics(before, after));
    Deleted deleted = new ExpiredFiles(io, workers, Map.of()).delete(doomed);
    return new Deleted(deleted.dataFiles(), deleted.deleteFiles(), deleted.manifests(), deleted.manifestLists(),
        deleted.otherFiles(), deleted.bytes(), plan.unread());
  }

  private static Set<Long> ids(List<Snapshot> snapshots) {
    Set<Long> ids = new HashSet<>();
    snapshots.forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }

  private List<Doomed> unreachable(TableMetadata before, List<Snapshot> remaining) {
    Set<Long> remainingIds = ids(remaining);
    List<Snapshot> expired = new ArrayList<>();
    for (Snapshot snapshot : before.snapshots()) {
      if (!remainingIds.contains(snapshot.snapshotId())) {
        expired.add(snapshot);
      }
    }
    List<Doomed> doomed = new ArrayList<>();
    if (!expired.isEmpty()) {
      Map<String, ManifestFile> expiredManifests = manifestsOf(expired, false);
      Map<String, ManifestFile> remainingManifests = manifestsOf(remaining, true);
      List<ManifestFile> onlyExpired = new ArrayList<>();
      for (ManifestFile manifest : expiredManifests.values()) {
        if (!remainingManifests.containsKey(manifest.path())) {
          onlyExpired.add(manifest);
        }
      }
      Map<String, Doomed> files = liveFiles(onlyExpired);
      if (!files.isEmpty()) {
        keepLive(files, remainingManifests.values());
      }
      // data and delete files first, then the metadata that pointed at them
      doomed.addAll(files.values());
      for (ManifestFile manifest : onlyExpired) {
        doomed.add(new Doomed(manifest.path(), Kind.MANIFEST, manifest.length()));
      }
      for (Snapshot snapshot : expired) {
        if (snapshot.manifestListLocation() != null) {
          doomed.add(new Doomed(snapshot.manifestListLocation(), Kind.MANIFEST_LIST, -1));
        }
      }
    }
    return doomed;
  }

  /** The statistics files only the metadata before the expiry references. */
  private static List<Doomed> unreferencedStatistics(TableMetadata before, TableMetadata after) {
    List<Doomed> doomed = new ArrayList<>();
    Set<String> stillReferenced = new HashSet<>();
    after.statisticsFiles().forEach(f -> stillReferenced.add(f.path()));
    after.partitionStatisticsFiles().forEach(f -> stillReferenced.add(f.path()));
    for (StatisticsFile stats : before.statisticsFiles()) {
      if (stillReferenced.add(stats.path())) {
        doomed.add(new Doomed(stats.path(), Kind.OTHER, stats.fileSizeInBytes()));
      }
    }
    for (PartitionStatisticsFile stats : before.partitionStatisticsFiles()) {
      if (stillReferenced.add(stats.path())) {
        doomed.add(new Doomed(stats.path(), Kind.OTHER, stats.fileSizeInBytes()));
      }
    }
    return doomed;
  }

  /**
   * The manifests the snapshots list, by path: one read of each manifest list.
   *
   * @param remaining true for remaining snapshots: a list that cannot be read throws
   *     {@link ReachabilityUnknown}; false for expired ones: it is reported and skipped
   */
  private Map<String, ManifestFile> manifestsOf(List<Snapshot> snapshots, boolean remaining) {
    Map<String, ManifestFile> listed = new ConcurrentHashMap<>();
    FanOut.forEach(snapshots, workers, snapshot -> read(snapshot.manifestListLocation() != null
        ? snapshot.manifestListLocation() : "manifests of snapshot " + snapshot.snapshotId(), remaining,
        () -> manifests.manifests(snapshot).forEach(m -> listed.putIfAbsent(m.path(), m))));
    return listed;
  }

  /** The files live in the manifests (of expired snapshots only), by location, with kind and size from the entry. */
  private Map<String, Doomed> liveFiles(List<ManifestFile> manifests) {
    Map<String, Doomed> files = new ConcurrentHashMap<>();
    FanOut.forEach(withLiveEntries(manifests), workers, manifest -> read(manifest.path(), false,
        () -> this.manifests.liveEntries(manifest, (location, content, size) -> files.putIfAbsent(location,
            new Doomed(location, content == FileContent.DATA ? Kind.DATA : Kind.DELETES, size)))));
    return files;
  }

  /** Removes from {@code files} every file live in one of {@code manifests} (of remaining snapshots). */
  private void keepLive(Map<String, Doomed> files, java.util.Collection<ManifestFile> manifests) {
    FanOut.forEach(withLiveEntries(manifests), workers, manifest -> {
      if (!files.isEmpty()) {
        read(manifest.path(), true,
            () -> this.manifests.liveEntries(manifest, (location, content, size) -> files.remove(location)));
      }
    });
  }

  /**
   * Runs a read of the metadata file at {@code location} (which may run again: what it collects
   * must not mind), up to three times. If it still fails: throws {@link ReachabilityUnknown} for a
   * file of a remaining snapshot, else records the file as unread.
   */
  private void read(String location, boolean remaining, Runnable read) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      try {
        read.run();
        return;
      } catch (RuntimeException e) {
        last = e;
      }
    }
    if (remaining) {
      throw new ReachabilityUnknown(location, last);
    }
    LOG.warn("Cannot read {} of an expired snapshot; the files only it references stay on storage "
        + "(orphan-file removal deletes them): {}", location, last.toString());
    unread.add(location);
  }

  /** Manifests that may hold live entries (counts unknown count as yes). */
  private static List<ManifestFile> withLiveEntries(java.util.Collection<ManifestFile> manifests) {
    List<ManifestFile> live = new ArrayList<>();
    for (ManifestFile manifest : manifests) {
      if (manifest.hasAddedFiles() || manifest.hasExistingFiles()) {
        live.add(manifest);
      }
    }
    return live;
  }

  private Deleted delete(List<Doomed> doomed) {
    if (doomed.isEmpty()) {
      return Deleted.NONE;
    }
    AtomicLong[] counts = new AtomicLong[Kind.values().length];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new AtomicLong();
    }
    AtomicLong bytes = new AtomicLong();
    List<List<Doomed>> chunks = new ArrayList<>();
    for (int from = 0; from < doomed.size(); from += CHUNK) {
      chunks.add(doomed.subList(from, Math.min(doomed.size(), from + CHUNK)));
    }
    FanOut.forEach(chunks, workers, chunk -> {
      for (Doomed file : deleteChunk(chunk)) {
        counts[file.kind().ordinal()].incrementAndGet();
        bytes.addAndGet(Math.max(0, file.size()));
      }
    });
    return new Deleted(counts[Kind.DATA.ordinal()].get(), counts[Kind.DELETES.ordinal()].get(),
        counts[Kind.MANIFEST.ordinal()].get(), counts[Kind.MANIFEST_LIST.ordinal()].get(),
        counts[Kind.OTHER.ordinal()].get(), bytes.get(), List.of());
  }

  /** Deletes one chunk; returns the files deleted, each with its size. */
  private List<Doomed> deleteChunk(List<Doomed> chunk) {
    List<Doomed> sized = new ArrayList<>(chunk.size());
    for (Doomed file : chunk) {
      sized.add(file.size() >= 0 ? file : new Doomed(file.location(), file.kind(), sizeOnStorage(file.location())));
    }
    if (io instanceof SupportsBulkOperations bulk) {
      List<String> locations = new ArrayList<>(sized.size());
      sized.forEach(f -> locations.add(f.location()));
      try {
        bulk.deleteFiles(locations);
        return sized;
      } catch (BulkDeletionFailureException e) {
        LOG.warn("Cannot delete {} of {} unreachable files in one request; deleting them one by one",
            e.numberFailedObjects(), locations.size());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete {} unreachable files in one request; deleting them one by one: {}", locations.size(),
            e.toString());
      }
    }
    List<Doomed> deleted = new ArrayList<>(sized.size());
    for (Doomed file : sized) {
      if (deleteOne(file.location())) {
        deleted.add(file);
      }
    }
    return deleted;
  }

  private boolean deleteOne(String location) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        io.deleteFile(location);
        return true;
      } catch (RuntimeException e) {
        last = e;
      }
    }
    LOG.warn("Cannot delete unreachable file (orphan-file removal will): {}: {}", location, last.toString());
    return false;
  }

  private long sizeOnStorage(String location) {
    try {
      return io.newInputFile(location).getLength();
    } catch (RuntimeException e) {
      return 0; // already gone: nothing to free
    }
  }
}
