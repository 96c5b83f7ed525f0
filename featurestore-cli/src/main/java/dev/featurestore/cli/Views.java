package dev.featurestore.cli;

import dev.featurestore.RefInfo;
import dev.featurestore.SnapshotInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** The API's values as rows the commands print (one shape for the table and the JSON output). */
final class Views {
  private Views() {}

  static Map<String, Object> snapshot(SnapshotInfo s) {
    return Values.row(
        "snapshot_id", s.snapshotId(),
        "parent_id", s.parentId(),
        "timestamp", s.timestamp(),
        "operation", s.operation(),
        "schema_id", s.schemaId(),
        "added_rows", s.addedRows(),
        "deleted_rows", s.deletedRows(),
        "total_rows", s.totalRows(),
        "added_files", s.addedDataFiles(),
        "removed_files", s.removedDataFiles(),
        "added_bytes", s.addedBytes(),
        "removed_bytes", s.removedBytes(),
        "current", s.current());
  }

  /** Every field with its id, nested struct fields as {@code parent.child}. */
  static List<Map<String, Object>> fields(Schema schema) {
    List<Map<String, Object>> rows = new ArrayList<>();
    addFields(rows, "", schema.columns());
    return rows;
  }

  private static void addFields(List<Map<String, Object>> rows, String prefix, List<Types.NestedField> fields) {
    for (Types.NestedField f : fields) {
      Type type = f.type();
      rows.add(Values.row("id", f.fieldId(), "name", prefix + f.name(), "type", type.toString(),
          "required", f.isRequired(), "doc", f.doc()));
      if (type.isStructType()) {
        addFields(rows, prefix + f.name() + ".", type.asStructType().fields());
      }
    }
  }

  static List<Map<String, Object>> spec(PartitionSpec spec, Schema schema) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (PartitionField f : spec.fields()) {
      rows.add(Values.row("field_id", f.fieldId(), "name", f.name(), "source_id", f.sourceId(),
          "source", schema.findColumnName(f.sourceId()), "transform", f.transform().toString()));
    }
    return rows;
  }

  static Map<String, Object> ref(RefInfo r) {
    return Values.row("name", r.name(), "type", r.type().name().toLowerCase(java.util.Locale.ROOT),
        "snapshot_id", r.snapshotId(), "min_snapshots_to_keep", r.minSnapshotsToKeep(),
        "max_snapshot_age", r.maxSnapshotAge(), "max_ref_age", r.maxRefAge());
  }
}
