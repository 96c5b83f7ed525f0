package dev.featurestore.cdc;

import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.PositionDeletes;
import dev.featurestore.core.base.TableCoordination;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Current-state mode, merge-on-read ({@link CurrentStateLayout#MERGE_ON_READ}): one live row per
 * (collection, doc id). A batch is reduced to the last change of each document
 * ({@link CurrentStateBatch}); the new versions go into one new data file, and the old rows'
 * positions, found in the {@link KeyIndex}, are marked deleted in deletion vectors (format 3;
 * position-delete files on format 2) through core's {@link PositionDeletes}, merged with each data
 * file's previous vector. A delete only marks. One {@code RowDelta} commits the new file, the
 * vectors (replacing the previous ones) and the shard's mark; no equality deletes are ever
 * written. Work per commit follows the batch: the index is kept at the writer's own snapshot
 * without reading anything, and caught up from the table only after foreign commits.
 *
 * <p>Compaction: the writer holds the store's commit lock of the table ({@link TableCoordination})
 * from choosing its base snapshot to its commit; the store's compaction rewrites outside it and
 * takes it only to carry the deletes committed meanwhile over to its new files and commit, so it
 * lands between two batches however busy the stream, and the index follows it through the row
 * moves it published ({@link KeyIndexSync}) instead of reading the new files.
 *
 * <p>Concurrent writers: the commit validates from its base snapshot that no data or delete files
 * were added and that the files it deletes from still exist, so another shard's commit or a
 * compaction in between fails it; the pipeline then redoes the batch on the new state (the index
 * catches up first). After an unknown commit outcome the index is left at the base snapshot and
 * caught up by the next batch (which reads this commit's file if it landed).
 */
final class MergeOnReadStateWriter implements TableWriter {
  private final Table table;
  private final String name;
  private final String shard;
  private final String compression;
  private final boolean evolveSchema;
  private final int maxTypedColumns;
  private final Hooks hooks;
  private final PendingFiles pending;
  private final KeyIndex index = new KeyIndex();
  private final KeyIndexSync sync;
  private final TableCoordination coordination;

  MergeOnReadStateWriter(Table table, String name, String shard, String compression, boolean evolveSchema,
      int maxTypedColumns, Hooks hooks, PendingFiles pending, TableCoordination coordination) {
    this.table = table;
    this.name = name;
    this.shard = shard;
    this.compression = compression;
    this.evolveSchema = evolveSchema;
    this.maxTypedColumns = maxTypedColumns;
    this.hooks = hooks;
    this.pending = pending;
    this.coordination = coordination;
    this.sync = new KeyIndexSync(table, name, hooks, coordination);
  }

  @Override
  public Table table() {
    return table;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean isolatesFailingEntries() {
    return true;
  }

  /**
   * Holds the store's commit lock of the table from choosing the base snapshot to the commit (and
   * the index update after it): a compaction of this store commits between two batches, never
   * inside one, so it can carry this writer's deletes over and this writer never loses to it.
   */
  @Override
  public Committed write(List<Logged> entries, long lastSeq, long commitMillis) {
    ReentrantLock lock = coordination.commitLock();
    lock.lock();
    try {
      return writeLocked(entries, lastSeq, commitMillis);
    } finally {
      lock.unlock();
    }
  }

  private Committed writeLocked(List<Logged> entries, long lastSeq, long commitMillis) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    sync.sync(index, base);
    CurrentStateBatch batch = CurrentStateBatch.of(table, entries, evolveSchema, maxTypedColumns);

    hooks.at("flush.before-write");
    PendingFiles.Marker marker = pending.start(name);
    DataFileSink sink = new DataFileSink(batch.target, batch.schema, compression, marker);
    // the vectors' Puffin files are recorded in the batch marker like the data files
    PositionDeletes deletes = new PositionDeletes(batch.target, index::deletesOf, marker.recording(table.io()));
    List<KeyIndex.Key> added = new ArrayList<>();
    List<KeyIndex.Key> removed = new ArrayList<>();
    List<DataFile> files;
    PositionDeletes.Written vectors;
    try {
      for (Logged logged : batch.finals.values()) {
        KeyIndex.Key key = KeyIndex.key(logged.entry.collection(), logged.entry.docId());
        KeyIndex.Location old = index.find(key);
        if (old != null) {
          deletes.delete(old.file(), old.position());
        }
        if (logged.entry.operation() == CdcOperation.DELETE) {
          removed.add(key);
        } else {
          sink.write(batch.row(logged, shard, commitMillis));
          added.add(key);
        }
      }
      hooks.at("flush.mid-write");
      files = sink.finish();
      hooks.at("flush.files-written");
      vectors = deletes.finish();
      hooks.at("flush.deletes-written");
    } catch (RuntimeException | Error e) {
      sink.abort(); // every file the marker recorded: data and Puffin
      throw e;
    }
    long bytes = 0;
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
    }
    for (DeleteFile file : vectors.added()) {
      bytes += file.fileSizeInBytes();
    }
    CommitMarks commitMark = CommitMarks.create();
    try {
      RowDelta delta = commitMark.mark(CommitPhases.forTable(batch.target,
          batch.txn != null ? batch.txn.newRowDelta() : batch.target.newRowDelta()));
      if (base != null) {
        delta.validateFromSnapshot(base.snapshotId());
      }
      // another shard's rows or vectors, or a compaction, in the meantime fail this commit; the pipeline redoes the batch
      delta.conflictDetectionFilter(Expressions.alwaysTrue()).validateNoConflictingDataFiles().validateNoConflictingDeleteFiles();
      files.forEach(delta::addRows);
      vectors.addTo(delta);
      CdcTables.carryMarks(table, delta::set);
      delta.set(CdcTables.markKey(shard), Long.toString(lastSeq));
      hooks.at("commit.before");
      delta.commit();
      if (batch.txn != null) {
        batch.txn.commitTransaction();
      }
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw e; // the index still describes the base snapshot: the next batch catches it up
    } catch (RuntimeException | Error e) {
      vectors.delete(table.io());
      DataFileSink.deleteFiles(table, files, marker);
      throw e;
    }
    DataFileSink.committed(marker);
    hooks.at("commit.after");
    table.refresh();
    long snapshotId = commitMark.committedSnapshotId(table, null);
    Snapshot mine = table.snapshot(snapshotId);
    Long parent = mine == null ? null : mine.parentId();
    if (mine != null && Objects.equals(parent, base == null ? null : base.snapshotId())) {
      applyOwn(snapshotId, files, added, removed, vectors);
    } // else another commit landed in between without conflicting: the next batch walks over both
    // the data files: FlushResult names data files (the vectors are delete files of the data files they mark)
    return new Committed(files.stream().map(DataFile::location).toList(), bytes, snapshotId, batch.dead);
  }

  /** This writer's commit, straight into the index: nothing read but the batch itself. */
  private void applyOwn(long snapshotId, List<DataFile> files, List<KeyIndex.Key> added, List<KeyIndex.Key> removed,
      PositionDeletes.Written vectors) {
    if (index.full()) {
      index.invalidate();
      return;
    }
    removed.forEach(index::remove);
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();
    if (table.spec().isUnpartitioned() && rows == added.size()) {
      int next = 0; // the rolling writer fills the files one after the other, in write order
      for (DataFile file : files) {
        int ordinal = index.addFile(file);
        for (long position = 0; position < file.recordCount(); position++) {
          index.put(added.get(next++), ordinal, position);
        }
      }
    } else {
      for (DataFile file : files) {
        sync.readKeys(file, List.of()).putInto(index, index.addFile(file));
      }
    }
    for (DeleteFile replaced : vectors.replaced()) {
      index.removeDelete(ContentFileUtil.referencedDataFileLocation(replaced), replaced);
    }
    for (DeleteFile delete : vectors.added()) {
      index.addDelete(ContentFileUtil.referencedDataFileLocation(delete), delete);
    }
    index.at(snapshotId);
  }
}
