package dev.featurestore.core.query;

import dev.featurestore.QueryResult;
import dev.featurestore.RowDiff;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.query.ScanExecution.Planned;
import dev.featurestore.core.query.TableQuery.Plan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * A row-level diff by file-level set difference: plan both snapshots (one task per live data file,
 * with the delete files that apply to it), keep the data files that are live on one side only or
 * whose delete files differ, read those files on each side with that side's deletes, and cancel the
 * rows that appear on both sides (a rewritten file, a copy-on-write overwrite) by {@link RowHash}.
 * The multiset difference of the changed files is the multiset difference of the whole snapshots,
 * because the unchanged files hold the same rows on both sides.
 *
 * <p>A range of snapshots that only rewrite files ({@code replace}: compaction, manifest or file
 * rewrites, which keep the rows by contract) is an empty diff without reading anything.
 */
final class RowDiffScan implements RowDiff {
  private final TableHandle handle;
  private final Plan from;
  private final Plan to;
  private final List<FileScanTask> removedSide; // changed files, read as `from` holds them
  private final List<FileScanTask> addedSide; // changed files, read as `to` holds them
  private final List<String> changedFiles;
  private final int columns;
  private Counts counts; // guarded by this

  /** Counted rows, and per row hash how many occurrences cancel on each side. */
  private record Counts(long added, long removed, Map<RowHash, Long> cancelled) {}

  private RowDiffScan(TableHandle handle, Plan from, Plan to, List<FileScanTask> removedSide,
      List<FileScanTask> addedSide, List<String> changedFiles) {
    this.handle = handle;
    this.from = from;
    this.to = to;
    this.removedSide = removedSide;
    this.addedSide = addedSide;
    this.changedFiles = changedFiles;
    this.columns = to.projected().columns().size();
  }

  /** Plans the diff from {@code from} to {@code to}; both plans share one schema, projection and filter. */
  static RowDiff plan(TableHandle handle, Plan from, Plan to) {
    Table table = to.resolved().table();
    Snapshot fromSnapshot = from.resolved().snapshot();
    Snapshot toSnapshot = to.resolved().snapshot();
    if (rowsKept(table, fromSnapshot, toSnapshot)) {
      return new RowDiffScan(handle, from, to, List.of(), List.of(), List.of());
    }
    Map<String, FileScanTask> before = byFile(ScanExecution.planFiles(handle, from).tasks());
    Map<String, FileScanTask> after = byFile(ScanExecution.planFiles(handle, to).tasks());
    List<FileScanTask> removed = new ArrayList<>();
    List<FileScanTask> added = new ArrayList<>();
    TreeSet<String> changed = new TreeSet<>();
    before.forEach((file, task) -> {
      FileScanTask other = after.get(file);
      if (other == null || !deleteKeys(task).equals(deleteKeys(other))) {
        removed.add(task);
        changed.add(file);
      }
    });
    after.forEach((file, task) -> {
      FileScanTask other = before.get(file);
      if (other == null || !deleteKeys(task).equals(deleteKeys(other))) {
        added.add(task);
        changed.add(file);
      }
    });
    return new RowDiffScan(handle, from, to, List.copyOf(removed), List.copyOf(added), List.copyOf(changed));
  }

  /**
   * Whether the rows are the same by metadata alone: the same snapshot, or one an ancestor of the
   * other with only {@code replace} commits between them.
   */
  private static boolean rowsKept(Table table, Snapshot a, Snapshot b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.snapshotId() == b.snapshotId()) {
      return true;
    }
    return onlyRewritesBetween(table, a, b) || onlyRewritesBetween(table, b, a);
  }

  private static boolean onlyRewritesBetween(Table table, Snapshot older, Snapshot newer) {
    for (Snapshot s : SnapshotUtil.ancestorsOf(newer.snapshotId(), table::snapshot)) {
      if (s.snapshotId() == older.snapshotId()) {
        return true;
      }
      if (!DataOperations.REPLACE.equals(s.operation())) {
        return false;
      }
    }
    return false;
  }

  private static Map<String, FileScanTask> byFile(List<FileScanTask> tasks) {
    Map<String, FileScanTask> files = new LinkedHashMap<>();
    tasks.forEach(task -> files.put(task.file().location(), task));
    return files;
  }

  /** The delete files of a task, a deletion vector by its place in its Puffin file. */
  private static Set<String> deleteKeys(FileScanTask task) {
    Set<String> keys = new HashSet<>();
    for (DeleteFile delete : task.deletes()) {
      keys.add(delete.location() + "@" + delete.contentOffset());
    }
    return keys;
  }

  @Override
  public long fromSnapshotId() {
    return from.resolved().snapshotId();
  }

  @Override
  public long toSnapshotId() {
    return to.resolved().snapshotId();
  }

  @Override
  public Schema schema() {
    return to.projected();
  }

  @Override
  public List<String> changedDataFiles() {
    return changedFiles;
  }

  @Override
  public long addedCount() {
    return counts().added();
  }

  @Override
  public long removedCount() {
    return counts().removed();
  }

  @Override
  public QueryResult added() {
    return rows(to, addedSide);
  }

  @Override
  public QueryResult removed() {
    return rows(from, removedSide);
  }

  private synchronized Counts counts() {
    if (counts == null) {
      counts = handle.translating("diff table " + handle.id(), this::count);
    }
    return counts;
  }

  /** Hashes the removed side, then cancels the added side's rows against it. */
  private Counts count() {
    Map<RowHash, Long> remaining = new HashMap<>();
    long removedRows = forEachHash(from, removedSide, hash -> remaining.merge(hash, 1L, Long::sum));
    Map<RowHash, Long> cancelled = new HashMap<>();
    long[] added = {0};
    forEachHash(to, addedSide, hash -> {
      Long left = remaining.get(hash);
      if (left == null) {
        added[0]++;
      } else {
        if (left == 1) {
          remaining.remove(hash);
        } else {
          remaining.put(hash, left - 1);
        }
        cancelled.merge(hash, 1L, Long::sum);
      }
    });
    long cancelledRows = removedRows - remaining.values().stream().mapToLong(Long::longValue).sum();
    return new Counts(added[0], removedRows - cancelledRows, Map.copyOf(cancelled));
  }

  private long forEachHash(Plan plan, List<FileScanTask> tasks, java.util.function.Consumer<RowHash> sink) {
    long rows = 0;
    try (CloseableIterable<Record> records = ScanExecution.read(plan, tasks);
        CloseableIterator<Record> it = records.iterator()) {
      while (it.hasNext()) {
        sink.accept(RowHash.of(it.next(), columns));
        rows++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** One side's rows, without the occurrences that cancel against the other side. */
  private QueryResult rows(Plan plan, List<FileScanTask> tasks) {
    Map<RowHash, Long> budget = new HashMap<>(counts().cancelled());
    CloseableIterable<Record> records = CloseableIterable.filter(ScanExecution.read(plan, tasks), record -> {
      if (budget.isEmpty()) {
        return true;
      }
      RowHash hash = RowHash.of(record, columns);
      Long left = budget.get(hash);
      if (left == null) {
        return true;
      }
      if (left == 1) {
        budget.remove(hash);
      } else {
        budget.put(hash, left - 1);
      }
      return false;
    });
    long bytes = tasks.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    long deletes = tasks.stream().flatMap(t -> t.deletes().stream()).map(d -> d.location()).distinct().count();
    Planned planned = new Planned(tasks, true, tasks.size(), deletes, bytes, 0);
    return new ScanExecution.ScanResult(handle, plan, planned, records);
  }

  @Override
  public String toString() {
    return "RowDiff{table=" + handle.id() + ", from=" + fromSnapshotId() + ", to=" + toSnapshotId()
        + ", changedDataFiles=" + changedFiles.size() + "}";
  }
}
