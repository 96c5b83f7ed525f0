package dev.featurestore.core.stats;

import static java.util.Objects.requireNonNull;

import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import dev.featurestore.TableStats;
import dev.featurestore.TableStats.CommitStats;
import dev.featurestore.core.base.TableHandle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * Computes {@link TableStats} from a table's metadata: snapshot summaries, manifest lists,
 * manifest entries of the lists ({@link ManifestFile#length()}) and the sizes of metadata files.
 * No data file is opened.
 *
 * <p>Cost: one manifest-list read per known snapshot, one size lookup per manifest list and
 * metadata file, and the head of every logged {@code metadata.json} (up to its {@code
 * current-snapshot-id}). Files that no longer exist (expired metadata, a deleted manifest list)
 * are skipped, not failed on.
 *
 * <p>Attribution of a metadata file to a commit: the file that recorded snapshot S is the oldest
 * metadata file in the log (previous files, then the current one) whose {@code
 * current-snapshot-id} is S. Iceberg 1.12 no longer sets a metadata file's {@code last-updated-ms}
 * to the snapshot's timestamp, so timestamps cannot be matched exactly. Commits to a branch other
 * than main, and commits whose metadata file was already dropped from the log ({@code
 * write.metadata.previous-versions-max}), get no metadata-file bytes.
 *
 * <p>Thread safety: stateless; reads the table's metadata as of a refresh.
 */
public final class TableStatistics {
  private TableStatistics() {}

  /**
   * Refreshes the table and computes its statistics.
   *
   * @throws dev.featurestore.StorageException if metadata cannot be read
   */
  public static TableStats compute(TableHandle handle) {
    requireNonNull(handle, "handle is null");
    return handle.translating(
        "compute stats of table " + handle.id(),
        () -> compute(handle.id(), handle.refreshed(), handle.io(), handle.workers()));
  }

  /**
   * Computes statistics of {@code table} as it is now, without refreshing it; manifest lists and
   * metadata files are read on {@code workers}.
   */
  static TableStats compute(TableId id, Table table, FileIO io, ExecutorService workers) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    // Sequence numbers order commits in v2+; v1 tables have 0 everywhere and fall back to time.
    snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber)
        .thenComparingLong(Snapshot::timestampMillis));

    // One task per snapshot and per metadata file: on object storage each is a round trip.
    List<SnapshotFiles> perSnapshot = parallel(workers, snapshots, snapshot -> SnapshotFiles.read(snapshot, io));
    Map<String, Long> manifestLengths = new HashMap<>();
    long manifestListBytes = 0;
    Map<Long, SnapshotFiles> filesBySnapshot = new HashMap<>();
    for (SnapshotFiles files : perSnapshot) {
      manifestListBytes += files.manifestListBytes();
      files.manifestLengths().forEach(manifestLengths::putIfAbsent);
      filesBySnapshot.put(files.snapshotId(), files);
    }
    long manifestBytes = manifestListBytes + manifestLengths.values().stream().mapToLong(Long::longValue).sum();

    List<MetadataFile> metadataFiles = parallel(workers, metadataFiles(table), location -> MetadataFile.read(location, io));
    long metadataBytes = 0;
    Map<Long, Long> metadataFileBytesBySnapshot = new HashMap<>();
    for (MetadataFile file : metadataFiles) { // log order: the oldest file recording a snapshot wins
      metadataBytes += file.bytes();
      if (file.currentSnapshotId().isPresent()) {
        metadataFileBytesBySnapshot.putIfAbsent(file.currentSnapshotId().getAsLong(), file.bytes());
      }
    }

    List<CommitStats> commits = new ArrayList<>(snapshots.size());
    long dataBytesEverAdded = 0;
    long bytesEverWritten = 0;
    for (Snapshot snapshot : snapshots) {
      Map<String, String> summary = summary(snapshot);
      long dataWritten = longOf(summary, SnapshotSummary.ADDED_FILE_SIZE_PROP);
      dataBytesEverAdded += dataWritten;
      long snapshotId = snapshot.snapshotId();
      SnapshotFiles files = filesBySnapshot.get(snapshotId);
      long metadataWritten = files.firstWrittenManifestBytes()
          + files.manifestListBytes()
          + metadataFileBytesBySnapshot.getOrDefault(snapshotId, 0L);
      bytesEverWritten += dataWritten + metadataWritten;
      commits.add(new CommitStats(
          snapshotId,
          Instant.ofEpochMilli(snapshot.timestampMillis()),
          snapshot.operation() == null ? "unknown" : snapshot.operation(),
          longOf(summary, SnapshotSummary.ADDED_RECORDS_PROP),
          longOf(summary, SnapshotSummary.DELETED_RECORDS_PROP),
          longOf(summary, SnapshotSummary.TOTAL_RECORDS_PROP),
          dataWritten,
          metadataWritten,
          amplification(dataWritten + metadataWritten, dataWritten)));
    }

    Snapshot current = table.currentSnapshot();
    Map<String, String> currentSummary = current == null ? Map.of() : summary(current);
    long dataBytes = longOf(currentSummary, SnapshotSummary.TOTAL_FILE_SIZE_PROP);
    long totalBytes = dataBytes + manifestBytes + metadataBytes;
    return new TableStats(
        id,
        longOf(currentSummary, SnapshotSummary.TOTAL_RECORDS_PROP),
        longOf(currentSummary, SnapshotSummary.TOTAL_DATA_FILES_PROP),
        longOf(currentSummary, SnapshotSummary.TOTAL_DELETE_FILES_PROP),
        snapshots.size(),
        dataBytes,
        manifestBytes,
        metadataBytes,
        totalBytes,
        amplification(bytesEverWritten, dataBytesEverAdded),
        commits);
  }

  private static double amplification(long written, long data) {
    return data <= 0 ? 0.0 : (double) written / data;
  }

  private static List<ManifestFile> manifests(Snapshot snapshot, FileIO io) {
    try {
      return snapshot.allManifests(io);
    } catch (NotFoundException e) {
      return List.of(); // manifest list removed outside Iceberg: nothing to count
    }
  }

  /** Metadata files in log order: previous files (oldest first), then the current file. */
  private static List<String> metadataFiles(Table table) {
    if (!(table instanceof HasTableOperations ops)) {
      return List.of();
    }
    TableMetadata metadata = ops.operations().current();
    List<String> files = new ArrayList<>();
    for (TableMetadata.MetadataLogEntry entry : metadata.previousFiles()) {
      files.add(entry.file());
    }
    if (metadata.metadataFileLocation() != null) {
      files.add(metadata.metadataFileLocation());
    }
    return files;
  }

  /** What one snapshot's manifest list says, and what its files weigh. */
  private record SnapshotFiles(
      long snapshotId, long manifestListBytes, Map<String, Long> manifestLengths, long firstWrittenManifestBytes) {
    static SnapshotFiles read(Snapshot snapshot, FileIO io) {
      long listBytes = snapshot.manifestListLocation() == null ? 0 : length(io, snapshot.manifestListLocation());
      Map<String, Long> lengths = new LinkedHashMap<>();
      long firstWritten = 0;
      for (ManifestFile manifest : manifests(snapshot, io)) {
        if (lengths.putIfAbsent(manifest.path(), manifest.length()) == null
            && manifest.snapshotId() != null
            && manifest.snapshotId() == snapshot.snapshotId()) {
          firstWritten += manifest.length();
        }
      }
      return new SnapshotFiles(snapshot.snapshotId(), listBytes, lengths, firstWritten);
    }
  }

  /** A metadata.json: its size (0 if gone) and the snapshot it made current, if any. */
  private record MetadataFile(long bytes, OptionalLong currentSnapshotId) {
    static MetadataFile read(String location, FileIO io) {
      long bytes = length(io, location);
      if (bytes <= 0) {
        return new MetadataFile(0, OptionalLong.empty()); // expired or missing
      }
      try {
        return new MetadataFile(bytes, MetadataFileHeader.currentSnapshotId(io, location));
      } catch (NotFoundException e) {
        return new MetadataFile(0, OptionalLong.empty()); // deleted between the size lookup and the read
      }
    }
  }

  private static <T, R> List<R> parallel(ExecutorService workers, List<T> items, Function<T, R> task) {
    if (items.size() < 2) {
      return items.stream().map(task).collect(Collectors.toList());
    }
    List<Future<R>> futures = new ArrayList<>(items.size());
    for (T item : items) {
      futures.add(workers.submit(() -> task.apply(item)));
    }
    List<R> results = new ArrayList<>(items.size());
    try {
      for (Future<R> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      futures.forEach(f -> f.cancel(true));
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot compute table stats: interrupted", e);
    } catch (ExecutionException e) {
      futures.forEach(f -> f.cancel(true));
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new StorageException("Cannot compute table stats: " + e.getCause(), e.getCause());
    }
  }

  /** The file's length, 0 if it does not exist. */
  private static long length(FileIO io, String location) {
    try {
      return io.newInputFile(location).getLength();
    } catch (NotFoundException e) {
      return 0;
    }
  }

  private static Map<String, String> summary(Snapshot snapshot) {
    return snapshot.summary() == null ? Map.of() : snapshot.summary();
  }

  private static long longOf(Map<String, String> summary, String key) {
    String value = summary.get(key);
    if (value == null) {
      return 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
