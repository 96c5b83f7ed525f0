package dev.featurestore.cdc;

import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.RowMoves;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.TableCoordination;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.ContentFileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a {@link KeyIndex} to a table's snapshot: nothing when it is there already (the writer's
 * own commits keep it there); otherwise walks the snapshots from the index's snapshot to the
 * current one (data files removed: their entries read as absent; data files added: their key
 * columns are read, skipping positions their current deletion vector deletes; delete files added
 * and removed: the per-file delete lists follow), so the work follows what the foreign commits
 * wrote; a compaction of this store is followed through the row moves it published (entries move
 * to the new files' positions, nothing is read); and rebuilds it from a scan of the snapshot when that walk is not possible (the index's
 * snapshot is not an ancestor: a rollback, an expired snapshot in between, an invalid index, a
 * delete file not scoped to one data file). A rebuild reads only the key columns, files in
 * parallel, and logs its time.
 */
final class KeyIndexSync {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndexSync.class);
  private static final Schema KEYS = CdcTables.currentStateSchema().select(CdcTables.COLLECTION, CdcTables.DOC_ID);

  private final Table table;
  private final String name;
  private final Hooks hooks;
  private final TableCoordination coordination;

  /**
   * @param hooks told {@code key-index.rebuilt}, {@code key-index.caught-up} and
   *     {@code key-index.moved} (a compaction followed through its row moves; tests count them)
   * @param coordination where this store's compactions publish their row moves
   */
  KeyIndexSync(Table table, String name, Hooks hooks, TableCoordination coordination) {
    this.table = table;
    this.name = name;
    this.hooks = hooks;
    this.coordination = coordination;
  }

  /** Brings {@code index} to {@code current} (null: the table has no snapshot). */
  void sync(KeyIndex index, Snapshot current) {
    long target = current == null ? -1 : current.snapshotId();
    if (index.isValid() && index.snapshotId() == target) {
      return;
    }
    try {
      if (index.isValid() && index.snapshotId() >= 0 && current != null && !index.full() && catchUp(index, current)) {
        hooks.at("key-index.caught-up");
        return;
      }
      rebuild(index, current);
    } catch (RuntimeException | Error e) {
      index.invalidate(); // half caught up: describes no snapshot
      throw e;
    }
  }

  private void rebuild(KeyIndex index, Snapshot current) {
    long start = System.nanoTime();
    if (current == null) {
      index.reset(0, -1); // an empty table: nothing to read
      return;
    }
    List<FileScanTask> tasks = new ArrayList<>();
    long rows = 0;
    try (CloseableIterable<FileScanTask> planned = ScanPlanning.newScan(table, current).planFiles()) {
      for (FileScanTask task : planned) {
        tasks.add(task);
        rows += task.file().recordCount();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot index CDC current state " + name + ": " + e.getMessage(), e);
    }
    index.reset(rows, current.snapshotId());
    List<Integer> ordinals = new ArrayList<>();
    for (FileScanTask task : tasks) {
      ordinals.add(index.addFile(task.file()));
      for (DeleteFile delete : task.deletes()) {
        checkPositional(delete);
        index.addDelete(task.file().location(), delete);
      }
    }
    List<FileKeys> read = readAll(tasks.stream().map(FileScanTask::file).toList(), index);
    for (int i = 0; i < read.size(); i++) {
      read.get(i).putInto(index, ordinals.get(i));
    }
    index.at(current.snapshotId());
    long millis = (System.nanoTime() - start) / 1_000_000;
    LOG.info("CDC current state {}: key index rebuilt at snapshot {}: {} keys in {} data files, {} ms", name,
        current.snapshotId(), index.size(), tasks.size(), millis);
    hooks.at("key-index.rebuilt");
  }

  /** Walks the snapshots after the index's; false when that is not possible (then the caller rebuilds). */
  private boolean catchUp(KeyIndex index, Snapshot current) {
    List<Snapshot> chain = new ArrayList<>();
    Snapshot s = current;
    while (s != null && s.snapshotId() != index.snapshotId()) {
      chain.add(s);
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    if (s == null) {
      return false; // not an ancestor (rollback), or a snapshot in between expired
    }
    Collections.reverse(chain);
    // check first, change nothing until the walk is known to be possible
    List<SnapshotChanges> changes = new ArrayList<>();
    for (Snapshot step : chain) {
      SnapshotChanges change = SnapshotChanges.builderFor(table).snapshot(step).build();
      changes.add(change);
      for (DeleteFile delete : change.addedDeleteFiles()) {
        if (delete.content() != FileContent.POSITION_DELETES || ContentFileUtil.referencedDataFileLocation(delete) == null) {
          return false;
        }
      }
    }
    List<DataFile> added = new ArrayList<>();
    Set<String> addedInWalk = new HashSet<>();
    for (int i = 0; i < changes.size(); i++) {
      SnapshotChanges step = changes.get(i);
      RowMoves moves = movesOf(chain.get(i), step, index, addedInWalk);
      if (moves != null) {
        Map<String, DataFile> targets = new HashMap<>();
        step.addedDataFiles().forEach(f -> targets.put(f.location(), f));
        index.move(moves, targets); // registers the new files: nothing of them is read
        hooks.at("key-index.moved");
      }
      for (DataFile removed : step.removedDataFiles()) {
        index.removeFile(removed.location());
      }
      for (DeleteFile removed : step.removedDeleteFiles()) {
        String referenced = ContentFileUtil.referencedDataFileLocation(removed);
        if (referenced != null) {
          index.removeDelete(referenced, removed);
        }
      }
      for (DataFile file : step.addedDataFiles()) {
        if (moves != null) {
          continue; // a compaction's new file, already indexed through the moves
        }
        if (index.full()) {
          return false;
        }
        index.addFile(file);
        added.add(file);
        addedInWalk.add(file.location());
      }
      for (DeleteFile delete : step.addedDeleteFiles()) {
        index.addDelete(ContentFileUtil.referencedDataFileLocation(delete), delete);
      }
    }
    List<DataFile> live = added.stream().filter(f -> index.file(f.location()) != null).toList();
    List<FileKeys> read = readAll(live, index);
    for (int i = 0; i < live.size(); i++) {
      read.get(i).putInto(index, index.addFile(live.get(i)));
    }
    index.at(current.snapshotId());
    LOG.debug("CDC current state {}: key index caught up over {} snapshots ({} data files read)", name, chain.size(), live.size());
    return true;
  }

  /**
   * The row moves of {@code snapshot} if it is a compaction of this store whose moves the index can
   * follow: it removed exactly the files it rewrote and added exactly its new files, and every
   * rewritten file's keys are in the index (live, not added earlier in this walk and still
   * unread); else null, and the new files are read like any other.
   */
  private RowMoves movesOf(Snapshot snapshot, SnapshotChanges step, KeyIndex index, Set<String> addedInWalk) {
    Optional<RowMoves> published = coordination.moves(snapshot.snapshotId());
    if (published.isEmpty()) {
      return null;
    }
    RowMoves moves = published.get();
    Set<String> removed = new HashSet<>();
    step.removedDataFiles().forEach(f -> removed.add(f.location()));
    Set<String> added = new HashSet<>();
    step.addedDataFiles().forEach(f -> added.add(f.location()));
    Set<String> targets = new HashSet<>();
    moves.targets().forEach(f -> targets.add(f.location()));
    if (!removed.equals(moves.sources().keySet()) || !added.equals(targets)
        || index.full() || index.fileCount() + targets.size() >= KeyIndex.MAX_FILES) {
      return null;
    }
    for (String source : removed) {
      if (index.file(source) == null || addedInWalk.contains(source)) {
        return null;
      }
    }
    return moves;
  }

  private void checkPositional(DeleteFile delete) {
    if (delete.content() != FileContent.POSITION_DELETES) {
      throw new InvalidStateException("Cannot upsert into CDC current state " + name
          + ": the table has equality deletes (written by another tool); compact it first: " + delete.location());
    }
  }

  /** The live keys of one data file: hashes and positions, in file order. */
  record FileKeys(long[] his, long[] los, long[] positions, int count) {
    void putInto(KeyIndex index, int ordinal) {
      for (int i = 0; i < count; i++) {
        index.put(new KeyIndex.Key(his[i], los[i]), ordinal, positions[i]);
      }
    }
  }

  /** Reads the files' keys, in parallel when there are several; results in the order of {@code files}. */
  private List<FileKeys> readAll(List<DataFile> files, KeyIndex index) {
    List<List<DeleteFile>> deletes = files.stream().map(f -> index.deletesOf(f.location())).toList();
    if (files.size() <= 1) {
      List<FileKeys> one = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        one.add(readKeys(files.get(i), deletes.get(i)));
      }
      return one;
    }
    int threads = Math.min(files.size(), Math.max(1, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "featurestore-cdc-key-index");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<FileKeys>> futures = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        DataFile file = files.get(i);
        List<DeleteFile> fileDeletes = deletes.get(i);
        futures.add(pool.submit(() -> readKeys(file, fileDeletes)));
      }
      List<FileKeys> result = new ArrayList<>();
      for (Future<FileKeys> future : futures) {
        result.add(future.get());
      }
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InvalidStateException("Cannot index CDC current state " + name + ": interrupted: " + e.getMessage());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("Cannot index CDC current state " + name + ": " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** One data file's keys and positions, without the positions its delete files delete. */
  FileKeys readKeys(DataFile file, List<DeleteFile> deletes) {
    PositionDeleteIndex deleted = null;
    if (!deletes.isEmpty()) {
      deletes.forEach(this::checkPositional);
      deleted = new BaseDeleteLoader(d -> table.io().newInputFile(d)).loadPositionDeletes(deletes, file.location());
    }
    int capacity = (int) Math.min(Integer.MAX_VALUE - 8, file.recordCount());
    long[] his = new long[capacity];
    long[] los = new long[capacity];
    long[] positions = new long[capacity];
    int count = 0;
    long position = 0;
    try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location()))
        .project(KEYS)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(KEYS, fileSchema))
        .build()) {
      for (Record row : rows) {
        if (deleted == null || !deleted.isDeleted(position)) {
          KeyIndex.Key key = KeyIndex.key((String) row.get(0), (String) row.get(1));
          his[count] = key.hi();
          los[count] = key.lo();
          positions[count] = position;
          count++;
        }
        position++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot index CDC current-state file " + file.location() + ": " + e.getMessage(), e);
    }
    return new FileKeys(his, los, positions, count);
  }
}
