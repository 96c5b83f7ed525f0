package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.TableId;
import dev.featurestore.core.base.ScanPlanning;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The read-only commands that show what a store holds: tables, describe, history, schema, files. */
final class InspectCommands {
  private InspectCommands() {}

  @Command(name = "tables", description = "Lists the tables (of one namespace, or all) with their current snapshot.")
  static final class Tables extends StoreCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NAMESPACE", description = "Only this namespace.")
    String namespace;

    @Mixin Output output;

    @Override
    int run(FeatureStore store) {
      List<TableId> ids = namespace == null ? store.listTables() : store.listTables(namespace);
      List<Map<String, Object>> rows = new ArrayList<>();
      for (TableId id : ids) {
        FeatureTable t = store.table(id);
        var current = t.snapshots().current();
        rows.add(Values.row("table", id.toString(),
            "snapshot_id", current.map(SnapshotInfo::snapshotId),
            "total_rows", current.map(SnapshotInfo::totalRows).orElse(0L),
            "location", t.location()));
      }
      output.rows(out(), rows);
      return ExitCodes.OK;
    }
  }

  @Command(name = "describe", description = "Shows a table: schema with field ids, partition spec, properties, "
      + "location, current snapshot and refs.")
  static final class Describe extends StoreCommand.OnTable {
    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      Schema schema = t.schema();
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("table", t.id().toString());
      d.put("location", t.location());
      d.put("current_snapshot", t.snapshots().current().map(Views::snapshot).orElse(null));
      d.put("schema_id", schema.schemaId());
      d.put("schema", Views.fields(schema));
      d.put("partition_spec", Views.spec(t.spec(), schema));
      d.put("properties", new TreeMap<String, Object>(t.properties()));
      d.put("refs", t.snapshots().refInfos().stream().map(Views::ref).toList());
      output.object(out(), d);
      return ExitCodes.OK;
    }
  }

  @Command(name = "history", description = "Lists a table's snapshots, oldest first, with their row deltas.")
  static final class History extends StoreCommand.OnTable {
    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      output.rows(out(), t.snapshots().history().stream().map(Views::snapshot).toList());
      return ExitCodes.OK;
    }
  }

  @Command(name = "schema", description = "Shows a table's current schema, or every schema it has had (--all).")
  static final class SchemaCommand extends StoreCommand.OnTable {
    @Option(names = "--all", description = "Every schema version, oldest first.")
    boolean all;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      List<Map<String, Object>> rows = new ArrayList<>();
      Schema current = t.schema();
      // every version through the documented escape hatch: the API holds the current schema only
      Map<Integer, Schema> schemas = all ? new TreeMap<>(t.unwrap(Table.class).schemas()) : Map.of(current.schemaId(), current);
      schemas.forEach((id, schema) -> {
        for (Map<String, Object> field : Views.fields(schema)) {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("schema_id", id);
          row.put("current", id == current.schemaId());
          row.putAll(field);
          rows.add(row);
        }
      });
      output.rows(out(), rows);
      return ExitCodes.OK;
    }
  }

  @Command(name = "files", description = "Lists the data files of the current snapshot (or --snapshot) with their delete files.")
  static final class Files extends StoreCommand.OnTable {
    @Option(names = "--snapshot", paramLabel = "ID", description = "A snapshot id instead of the current one.")
    Long snapshot;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) throws Exception {
      if (snapshot != null) {
        t.snapshots().snapshot(snapshot); // the API's SnapshotNotFoundException for an unknown id
      }
      Table table = t.unwrap(Table.class);
      TableScan scan = snapshot == null ? ScanPlanning.newCurrentScan(table) : ScanPlanning.newScan(table, snapshot);
      List<Map<String, Object>> rows = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
        for (FileScanTask task : tasks) {
          PartitionSpec spec = table.specs().get(task.file().specId());
          rows.add(Values.row("path", task.file().location(),
              "format", task.file().format().name().toLowerCase(java.util.Locale.ROOT),
              "partition", spec.isUnpartitioned() ? "" : spec.partitionToPath(task.file().partition()),
              "records", task.file().recordCount(),
              "size_bytes", task.file().fileSizeInBytes(),
              "delete_files", task.deletes().size()));
        }
      }
      rows.sort(java.util.Comparator.comparing(r -> (String) r.get("path")));
      output.rows(out(), rows);
      return ExitCodes.OK;
    }
  }
}
