package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Table;

/**
 * What CDC pipelines have committed to a target table (each shard's high-water mark) and what
 * their write-ahead logs still hold, read without opening a pipeline: nothing is locked, replayed,
 * leased or written, so it is safe beside a running pipeline (the figures are a moment's view).
 *
 * <pre>{@code
 * CdcStatus status = CdcStatus.read(store, TableId.parse("cdc.orders_log"), Path.of("store/cdc-wal"));
 * status.marks();   // {"0": 12000, "1": 11870}: the highest sequence id committed per shard
 * status.wal();     // per shard: segment files and bytes still on disk, how many lie above the mark
 * }</pre>
 *
 * @param table the target table (change log or current state)
 * @param marks the highest committed sequence id of every shard that ever committed, by shard id
 * @param wal the write-ahead log of each shard found in the log directory, by shard id; empty
 *     when no directory was given
 */
public record CdcStatus(TableId table, Map<String, Long> marks, List<WalShard> wal) {
  public CdcStatus {
    marks = Map.copyOf(marks);
    wal = List.copyOf(wal);
  }

  /**
   * One shard's write-ahead log on disk. A segment holds one batch and is deleted once every
   * target committed it, so segments left above the mark are entries accepted and not yet
   * committed (a crash, a stopped pipeline, or a batch in flight): the next open replays them.
   *
   * @param shard the shard id (the log's folder name)
   * @param segments segment files on disk
   * @param bytes their total size
   * @param firstSequence the first sequence id of the oldest segment, if any
   * @param committedMark this shard's mark in the table, if it committed to it
   * @param segmentsAboveMark segments whose first entry is above the mark (all of them without a mark)
   */
  public record WalShard(String shard, int segments, long bytes, OptionalLong firstSequence, OptionalLong committedMark,
      int segmentsAboveMark) {}

  /** The marks of {@code table}; no write-ahead log. */
  public static CdcStatus read(FeatureStore store, TableId table) {
    InvalidArgumentException.requireNonNull(store, "read CDC status", "store");
    InvalidArgumentException.requireNonNull(table, "read CDC status", "table");
    return new CdcStatus(table, CdcTables.readMarks(store.table(table).unwrap(Table.class)), List.of());
  }

  /**
   * The marks of {@code table} and every shard's log under {@code walDirectory} (the directory
   * given to {@link CdcPipeline.Builder#writeAheadLog(Path)}).
   *
   * @throws NotFoundException if the table or the directory does not exist
   * @throws StorageException if the directory cannot be read
   */
  public static CdcStatus read(FeatureStore store, TableId table, Path walDirectory) {
    InvalidArgumentException.requireNonNull(walDirectory, "read CDC status", "walDirectory");
    CdcStatus marks = read(store, table);
    if (!Files.isDirectory(walDirectory)) {
      throw new NotFoundException("Cannot read CDC status: no write-ahead log directory: " + walDirectory);
    }
    List<WalShard> shards = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(walDirectory, Files::isDirectory)) {
      for (Path dir : dirs) {
        String shard = dir.getFileName().toString();
        shards.add(shard(shard, WriteAheadLog.segments(dir, "read"), marks.marks().get(shard)));
      }
    } catch (IOException e) {
      throw new StorageException("Cannot read CDC status: " + walDirectory + ": " + e.getMessage(), e);
    }
    shards.sort(Comparator.comparing(WalShard::shard));
    return new CdcStatus(table, marks.marks(), shards);
  }

  /**
   * One shard's figures from its listed segment files. A running pipeline deletes committed
   * segments on its background thread, so a file listed a moment ago may be gone when its size is
   * read: it is left out, as a listing a moment later would have left it.
   */
  static WalShard shard(String shard, List<Path> listed, Long mark) throws IOException {
    List<Path> segments = new ArrayList<>(listed.size());
    long bytes = 0;
    for (Path s : listed) {
      try {
        bytes += Files.size(s);
        segments.add(s);
      } catch (NoSuchFileException gone) {
        // deleted after it was committed, between the listing and now
      }
    }
    int above = (int) segments.stream().filter(s -> mark == null || WriteAheadLog.firstSeqOf(s) > mark).count();
    return new WalShard(shard, segments.size(), bytes,
        segments.isEmpty() ? OptionalLong.empty() : OptionalLong.of(WriteAheadLog.firstSeqOf(segments.get(0))),
        mark == null ? OptionalLong.empty() : OptionalLong.of(mark), above);
  }
}
