package dev.featurestore.core.snapshot;

import dev.featurestore.SnapshotDiff;
import dev.featurestore.SnapshotDiff.ColumnChange;
import dev.featurestore.SnapshotDiff.ColumnChange.Kind;
import dev.featurestore.core.base.ScanPlanning;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;

/** Computes a {@link SnapshotDiff} from metadata: summaries, manifests and schemas. */
final class Diffs {
  private Diffs() {}

  static SnapshotDiff diff(Table table, Snapshot from, Snapshot to) {
    Long common = commonAncestor(table, from, to);
    long[] towardTo = deltas(table, to, common);
    long[] towardFrom = deltas(table, from, common);
    Set<String> fromFiles = liveDataFiles(table, from);
    Set<String> toFiles = liveDataFiles(table, to);
    TreeSet<String> added = new TreeSet<>(toFiles);
    added.removeAll(fromFiles);
    TreeSet<String> removed = new TreeSet<>(fromFiles);
    removed.removeAll(toFiles);
    return new SnapshotDiff(from.snapshotId(), to.snapshotId(),
        towardTo[0] + towardFrom[1], towardTo[1] + towardFrom[0],
        new ArrayList<>(added), new ArrayList<>(removed),
        schemaChanges(schema(table, from), schema(table, to)));
  }

  private static Long commonAncestor(Table table, Snapshot a, Snapshot b) {
    Set<Long> ancestorsOfA = new HashSet<>();
    for (Snapshot s : SnapshotUtil.ancestorsOf(a.snapshotId(), table::snapshot)) {
      ancestorsOfA.add(s.snapshotId());
    }
    for (Snapshot s : SnapshotUtil.ancestorsOf(b.snapshotId(), table::snapshot)) {
      if (ancestorsOfA.contains(s.snapshotId())) {
        return s.snapshotId();
      }
    }
    return null;
  }

  /** Rows added and removed by the snapshots from {@code snapshot} back to (not including) {@code stop}. */
  private static long[] deltas(Table table, Snapshot snapshot, Long stop) {
    long added = 0;
    long removed = 0;
    for (Snapshot s : SnapshotUtil.ancestorsOf(snapshot.snapshotId(), table::snapshot)) {
      if (stop != null && s.snapshotId() == stop) {
        break;
      }
      Map<String, String> summary = s.summary() == null ? Map.of() : s.summary();
      added += number(summary, SnapshotSummary.ADDED_RECORDS_PROP);
      removed += number(summary, SnapshotSummary.DELETED_RECORDS_PROP)
          + number(summary, SnapshotSummary.ADDED_POS_DELETES_PROP);
    }
    return new long[] {added, removed};
  }

  private static long number(Map<String, String> summary, String key) {
    try {
      return Long.parseLong(summary.getOrDefault(key, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Set<String> liveDataFiles(Table table, Snapshot snapshot) {
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = ScanPlanning.newScan(table, snapshot).planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static Schema schema(Table table, Snapshot snapshot) {
    Integer id = snapshot.schemaId();
    Schema schema = id == null ? null : table.schemas().get(id);
    return schema == null ? table.schema() : schema;
  }

  static List<ColumnChange> schemaChanges(Schema from, Schema to) {
    List<ColumnChange> changes = new ArrayList<>();
    Map<Integer, Types.NestedField> before = org.apache.iceberg.types.TypeUtil.indexById(from.asStruct());
    Map<Integer, Types.NestedField> after = org.apache.iceberg.types.TypeUtil.indexById(to.asStruct());
    TreeSet<Integer> ids = new TreeSet<>(before.keySet());
    ids.addAll(after.keySet());
    for (int id : ids) {
      Types.NestedField a = before.get(id);
      Types.NestedField b = after.get(id);
      if (a == null) {
        changes.add(new ColumnChange(Kind.ADDED, id, "", to.findColumnName(id), "", b.type().toString()));
      } else if (b == null) {
        changes.add(new ColumnChange(Kind.REMOVED, id, from.findColumnName(id), "", a.type().toString(), ""));
      } else {
        String nameA = from.findColumnName(id);
        String nameB = to.findColumnName(id);
        if (!nameA.equals(nameB)) {
          changes.add(new ColumnChange(Kind.RENAMED, id, nameA, nameB, a.type().toString(), b.type().toString()));
        }
        if (a.type().isPrimitiveType() && !a.type().equals(b.type())) {
          changes.add(new ColumnChange(Kind.TYPE_CHANGED, id, nameA, nameB, a.type().toString(), b.type().toString()));
        }
      }
    }
    return changes;
  }
}
