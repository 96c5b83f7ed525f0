package dev.featurestore.spark;

import dev.featurestore.NotFoundException;
import dev.featurestore.ReadVersion;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.base.VersionResolver;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.spark.SparkReadOptions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A table version read as a Spark {@link Dataset}, resolved as the library resolves it
 * ({@link VersionResolver}: unknown snapshots, refs and early times fail the same way, before
 * Spark runs). The read is pinned to the resolved snapshot whenever that gives the same schema the
 * library reads with (a snapshot id, a time or a tag read with the snapshot's schema; the current
 * version and branches with the table's current schema), so every action on the Dataset reads
 * the same rows; a current version or branch whose schema changed after its snapshot is read by
 * name, with the current schema.
 */
final class SparkReads {
  /** A read: the resolved version (snapshot, schema) and its Dataset. */
  record Read(TableId table, ReadVersion version, VersionResolver.Resolved resolved, Dataset<Row> rows,
      Optional<List<String>> columns, Expression filter) {
    long snapshotId() {
      return resolved.snapshotId();
    }
  }

  private final SparkSession spark;
  private final String catalog;

  SparkReads(SparkSession spark, String catalog) {
    this.spark = spark;
    this.catalog = catalog;
  }

  String tableName(TableId id) {
    return catalog + ".`" + id.namespace().replace("`", "``") + "`.`" + id.name().replace("`", "``") + "`";
  }

  /** The rows {@code query} names: its version, columns and filter. */
  Read read(TimeTravelQuery query) {
    Table table = query.unwrap(Table.class);
    table.refresh();
    return read(query.table(), table, query.version(), query.columns(), query.filter());
  }

  Read read(TableId id, Table table, ReadVersion version, Optional<List<String>> columns, Expression filter) {
    VersionResolver.Resolved resolved = VersionResolver.resolve(id, table, version);
    Schema schema = resolved.schema();
    Snapshot snapshot = resolved.snapshot();
    DataFrameReader reader = spark.read().format("iceberg");
    // the library reads the current version and branches with the table's schema, the rest with the snapshot's
    boolean tableSchemaRead = version.kind() == ReadVersion.Kind.CURRENT || isBranch(table, version);
    boolean pinned = snapshot != null
        && (!tableSchemaRead || java.util.Objects.equals(snapshot.schemaId(), table.schema().schemaId()));
    if (pinned) {
      reader.option(SparkReadOptions.VERSION_AS_OF, Long.toString(snapshot.snapshotId()));
    } else if (version.kind() == ReadVersion.Kind.REF) {
      reader.option(SparkReadOptions.BRANCH, version.ref().orElseThrow());
    }
    Dataset<Row> rows = reader.load(tableName(id));
    if (columns.isPresent()) {
      Column[] selected = new Column[columns.get().size()];
      int i = 0;
      for (String column : columns.get()) {
        Types.NestedField field = schema.findField(column);
        if (field == null) {
          throw new NotFoundException("Cannot select column: column does not exist in snapshot "
              + resolved.snapshotId() + ": " + column);
        }
        selected[i++] = rows.col(quoted(column));
      }
      rows = rows.select(selected);
    }
    Column where = SparkFilters.column(filter, schema);
    if (where != null) {
      rows = rows.where(where);
    }
    return new Read(id, version, resolved, rows, columns, filter);
  }

  private static boolean isBranch(Table table, ReadVersion version) {
    return version.kind() == ReadVersion.Kind.REF && table.refs().get(version.ref().orElseThrow()) != null
        && table.refs().get(version.ref().get()).isBranch();
  }

  static String quoted(String column) {
    StringBuilder quoted = new StringBuilder();
    for (String part : column.split("\\.")) {
      if (quoted.length() > 0) {
        quoted.append('.');
      }
      quoted.append('`').append(part.replace("`", "``")).append('`');
    }
    return quoted.toString();
  }
}
