package dev.featurestore.core.maintenance;

import dev.featurestore.CommitConflictException;
import dev.featurestore.core.base.PositionDeletes;
import dev.featurestore.core.base.RowMoves;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Carries the position deletes committed while a compaction rewrote its files over to the new
 * files. The compaction rewrote the files as of its start snapshot; this walks the commits after
 * it (data files removed, delete files added and removed), keeps each rewritten file's delete
 * files as of the last snapshot walked, loads the deleted positions of the files whose deletes
 * changed, and translates the positions deleted since the start through the compaction's
 * {@link RowMoves}. The walk can be done in steps: most of it before taking the commit lock, the
 * last commits under it.
 *
 * <p>A commit that cannot be carried over fails the compaction with a conflict: one that removed a
 * rewritten file, a position-delete file not scoped to one data file, or history rewritten (the
 * start snapshot no longer an ancestor). Equality deletes need no carrying: the new files keep
 * the start snapshot's data sequence number, so equality deletes committed since still apply.
 */
final class DeleteCarry {
  private final Table table;
  private final String name;
  private final RowMoves moves;
  private final Map<String, DataFile> rewritten = new HashMap<>();
  /** Each rewritten file's delete files at the last walked snapshot, by {@link #key}. */
  private final Map<String, Map<String, DeleteFile>> deletes = new HashMap<>();
  /** The files whose delete files differ from the start's, with the positions loaded for the delete files of {@link #loadedFor}. */
  private final Map<String, PositionDeleteIndex> loaded = new HashMap<>();
  private final Map<String, Set<String>> loadedFor = new HashMap<>();
  private final Map<String, Set<String>> atStart = new HashMap<>();
  /** The rewritten file each of those delete files applies to. */
  private final Map<String, String> dataFileOf = new HashMap<>();
  private long walkedTo;

  DeleteCarry(Table table, String name, Snapshot start, List<FileScanTask> tasks, RowMoves moves) {
    this.table = table;
    this.name = name;
    this.moves = moves;
    this.walkedTo = start.snapshotId();
    for (FileScanTask task : tasks) {
      String location = task.file().location();
      rewritten.put(location, task.file());
      Map<String, DeleteFile> byKey = new LinkedHashMap<>();
      task.deletes().forEach(d -> {
        byKey.put(key(d), d);
        dataFileOf.put(key(d), location);
      });
      deletes.put(location, byKey);
      atStart.put(location, Set.copyOf(byKey.keySet()));
    }
  }

  /** Walks the commits from the last walked snapshot to {@code current} and loads the deletes that changed. */
  void advance(Snapshot current) {
    if (current == null) {
      throw conflict("the table has no snapshot any more");
    }
    List<Snapshot> chain = new ArrayList<>();
    for (Snapshot s = current; s != null && s.snapshotId() != walkedTo;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      chain.add(s);
      if (s.parentId() == null || table.snapshot(s.parentId()) == null) {
        throw conflict("the snapshot it started from is no longer an ancestor of the current one: " + walkedTo);
      }
    }
    Collections.reverse(chain);
    for (Snapshot step : chain) {
      SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(step).build();
      for (DataFile removed : changes.removedDataFiles()) {
        if (rewritten.containsKey(removed.location())) {
          throw conflict("snapshot " + step.snapshotId() + " removed a file it rewrote: " + removed.location());
        }
      }
      for (DeleteFile removed : changes.removedDeleteFiles()) {
        // by the delete file itself: a removed entry may come without the column bounds a v2 file's scope is read from
        String of = dataFileOf.remove(key(removed));
        if (of != null) {
          deletes.get(of).remove(key(removed));
        }
      }
      for (DeleteFile added : changes.addedDeleteFiles()) {
        if (added.content() != FileContent.POSITION_DELETES) {
          continue; // equality deletes apply to the new files by their sequence number
        }
        String referenced = ContentFileUtil.referencedDataFileLocation(added);
        if (referenced == null) {
          throw conflict("snapshot " + step.snapshotId() + " added position deletes not scoped to one data file: "
              + added.location());
        }
        Map<String, DeleteFile> of = deletes.get(referenced);
        if (of != null) {
          of.put(key(added), added);
          dataFileOf.put(key(added), referenced);
        }
      }
      walkedTo = step.snapshotId();
    }
    load();
  }

  private void load() {
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
    for (Map.Entry<String, Map<String, DeleteFile>> e : deletes.entrySet()) {
      Set<String> now = e.getValue().keySet();
      if (now.equals(atStart.get(e.getKey())) || now.equals(loadedFor.get(e.getKey()))) {
        continue;
      }
      loaded.put(e.getKey(), loader.loadPositionDeletes(List.copyOf(e.getValue().values()), e.getKey()));
      loadedFor.put(e.getKey(), Set.copyOf(now));
    }
  }

  /** The delete files of the rewritten files at the last walked snapshot: they apply to nothing once the rewrite commits. */
  List<DeleteFile> currentDeletes() {
    Map<String, DeleteFile> all = new LinkedHashMap<>();
    deletes.values().forEach(all::putAll);
    return List.copyOf(all.values());
  }

  /** The snapshot walked to. */
  long walkedTo() {
    return walkedTo;
  }

  /**
   * Writes the positions deleted since the start, translated to the new files (deletion vectors
   * on format 3, file-scoped position-delete files on format 2); empty if nothing was deleted.
   */
  Carried write(FileIO io) {
    PositionDeletes out = new PositionDeletes(table, path -> List.of(), io);
    long[] count = {0};
    List<DataFile> targets = moves.targets();
    for (Map.Entry<String, PositionDeleteIndex> e : loaded.entrySet()) {
      RowMoves.Source source = moves.source(e.getKey());
      e.getValue().forEach(position -> {
        long ordinal = source.ordinal(position);
        if (ordinal >= 0) { // else deleted at the start: not copied
          int target = moves.target(ordinal);
          out.delete(targets.get(target), moves.position(target, ordinal));
          count[0]++;
        }
      });
    }
    return new Carried(out.finish(), count[0]);
  }

  /** The delete files written for the new files, and how many positions they carry. */
  record Carried(PositionDeletes.Written files, long positions) {}

  private CommitConflictException conflict(String reason) {
    return new CommitConflictException("Cannot compact table " + name + ": a concurrent commit conflicts: cannot carry its deletes over: " + reason);
  }

  /** v3 deletion vectors share one Puffin file: each is its own delete file, told apart by its offset. */
  static String key(DeleteFile delete) {
    Long offset = delete.contentOffset();
    return offset == null ? delete.location() : delete.location() + "#" + offset;
  }
}
