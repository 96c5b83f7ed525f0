package dev.featurestore.cdc;

import dev.featurestore.StorageException;
import dev.featurestore.core.storage.ForwardingFileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an unfinished batch may have written: before a data file of a batch is created, its path
 * is appended to a marker file {@code pending-<id>.files} in the shard's log directory (synced
 * unless the fsync policy is NONE); the marker is deleted once the files are committed or
 * deleted (data files and the deletion vectors' Puffin files alike). A process killed mid-batch leaves the marker behind, and the next pipeline opened on
 * the log deletes every file it names that no snapshot of the table added since.
 */
final class PendingFiles {
  private static final Logger LOG = LoggerFactory.getLogger(PendingFiles.class);
  private static final String PREFIX = "pending-";
  private static final String SUFFIX = ".files";
  /** Snapshots this much older than a marker cannot hold its files (clock steps aside). */
  private static final long MARGIN_MILLIS = 10 * 60_000L;

  private final Path dir;
  private final boolean sync;
  /** Where a finished batch's marker is deleted (not on the committing thread). */
  private final Executor cleanup;

  PendingFiles(Path dir, FsyncPolicy fsync) {
    this(dir, fsync, Runnable::run);
  }

  PendingFiles(Path dir, FsyncPolicy fsync, Executor cleanup) {
    this.dir = dir;
    this.sync = fsync != FsyncPolicy.NONE;
    this.cleanup = cleanup;
  }

  /** Markers that only remember their files, for a table in memory (the write path's warm-up). */
  static PendingFiles inMemory() {
    return new PendingFiles(null, FsyncPolicy.NONE);
  }

  /** A marker for one batch's files in {@code table} (created with the first file). */
  Marker start(String table) {
    return new Marker(dir == null ? null : dir.resolve(PREFIX + UUID.randomUUID() + SUFFIX), table);
  }

  /** The files of one batch, recorded before each is created. */
  final class Marker {
    private final Path path;
    private final String table;
    private FileChannel channel;
    private final List<String> recorded = new java.util.ArrayList<>();

    private Marker(Path path, String table) {
      this.path = path;
      this.table = table;
    }

    synchronized void record(String location) {
      if (path == null) {
        recorded.add(location);
        return;
      }
      try {
        if (channel == null) {
          channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
          write("table\t" + table + "\n");
        }
        write(location + "\n");
        recorded.add(location);
        if (sync) {
          channel.force(false);
        }
      } catch (IOException e) {
        throw new StorageException("Cannot record CDC batch file in " + path + ": " + e.getMessage(), e);
      }
    }

    private void write(String line) throws IOException {
      ByteBuffer b = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
      while (b.hasRemaining()) {
        channel.write(b);
      }
    }

    /** Every file recorded (created or about to be), complete or not. */
    synchronized List<String> recorded() {
      return List.copyOf(recorded);
    }

    /** The batch's files are committed or deleted: forget them (the marker is deleted on the clean-up executor). */
    void done() {
      cleanup.execute(this::delete);
    }

    private synchronized void delete() {
      if (path == null) {
        return;
      }
      try {
        if (channel != null) {
          channel.close();
          channel = null;
        }
        Files.deleteIfExists(path);
      } catch (IOException e) {
        LOG.debug("Cannot delete CDC batch marker {}: {}", path, e.toString());
      }
    }

    /** {@code io}, recording every file created through it here first. */
    FileIO recording(FileIO io) {
      return new ForwardingFileIO(io, ForwardingFileIO.Ownership.BORROWED) {
        @Override
        public OutputFile newOutputFile(String location) {
          record(location);
          return super.newOutputFile(location);
        }
      };
    }
  }

  /**
   * On open: for each marker left by a killed batch, deletes the files it names that no snapshot
   * of the table added since the marker was written, then the marker. Returns the files deleted.
   */
  int clean(List<TableWriter> writers) {
    int deleted = 0;
    try (DirectoryStream<Path> markers = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
      for (Path marker : markers) {
        deleted += clean(marker, writers);
      }
    } catch (IOException e) {
      LOG.warn("Cannot list CDC batch markers in {}: {}", dir, e.toString());
    }
    return deleted;
  }

  private int clean(Path marker, List<TableWriter> writers) throws IOException {
    List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).startsWith("table\t")) {
      Files.deleteIfExists(marker); // cut short before its first file was created
      return 0;
    }
    String name = lines.get(0).substring("table\t".length());
    TableWriter writer = writers.stream().filter(w -> w.name().equals(name)).findFirst().orElse(null);
    if (writer == null) {
      LOG.warn("CDC batch marker {} names table {}, which this pipeline does not write: kept", marker, name);
      return 0;
    }
    Table table = writer.table();
    table.refresh();
    long since = Files.getLastModifiedTime(marker).toMillis() - MARGIN_MILLIS;
    Set<String> referenced = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.timestampMillis() >= since) {
        for (DataFile file : snapshot.addedDataFiles(table.io())) {
          referenced.add(file.location());
        }
        for (org.apache.iceberg.DeleteFile file : snapshot.addedDeleteFiles(table.io())) {
          referenced.add(file.location()); // a merge-on-read current state's deletion vectors
        }
      }
    }
    int deleted = 0;
    for (String location : lines.subList(1, lines.size())) {
      if (location.isEmpty() || referenced.contains(location)) {
        continue;
      }
      try {
        table.io().deleteFile(location);
        deleted++;
      } catch (RuntimeException e) {
        LOG.debug("Cannot delete {} of an unfinished CDC batch: {}", location, e.toString());
      }
    }
    if (deleted > 0) {
      LOG.info("CDC: deleted {} data files of an unfinished batch of {} (marker {})", deleted, name, marker);
    }
    Files.deleteIfExists(marker);
    return deleted;
  }
}
