package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import static dev.featurestore.duckdb.DuckTypes.identifier;
import static dev.featurestore.duckdb.DuckTypes.quote;

import dev.featurestore.duckdb.ScanPlanner.PlannedScan;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Registers a planned scan as a temporary view on one connection. DuckDB reads the data files
 * with {@code read_parquet(schema=MAP{field_id: ...})}, so columns are matched by Parquet field
 * id (renames, added columns with defaults, promotions and dropped columns are right in old files),
 * then positional deletes and deletion vectors (loaded through Iceberg into a temporary table) and
 * equality deletes (read natively) are removed by anti-joins, and the Iceberg filter is applied as
 * SQL so rows are exact.
 */
final class Relations {
  private Relations() {}

  /** Internal column name of a field id inside the view; users see the schema's names. */
  private static String col(int fieldId) {
    return "c" + fieldId;
  }

  static void register(DuckDBConnection connection, String name, PlannedScan scan, Function<String, String> localPath,
      int index) throws SQLException {
    List<Types.NestedField> visible = scan.columns();
    StringBuilder select = new StringBuilder();
    for (Types.NestedField field : visible) {
      if (!select.isEmpty()) {
        select.append(", ");
      }
      select.append("d.").append(col(field.fieldId())).append(" AS ").append(identifier(field.name()));
    }
    try (Statement statement = connection.createStatement()) {
      if (scan.tasks().isEmpty()) {
        StringBuilder empty = new StringBuilder();
        for (Types.NestedField field : visible) {
          if (!empty.isEmpty()) {
            empty.append(", ");
          }
          empty.append("CAST(NULL AS ").append(DuckTypes.sqlType(field.type(), field.name())).append(") AS ")
              .append(identifier(field.name()));
        }
        statement.execute("CREATE OR REPLACE TEMP VIEW " + identifier(name) + " AS SELECT " + empty + " WHERE FALSE");
        return;
      }
      Map<Integer, Types.NestedField> read = readFields(scan);
      List<DeleteFile> positional = new ArrayList<>();
      List<DeleteFile> equality = new ArrayList<>();
      for (DeleteFile delete : scan.deleteFiles()) {
        if (delete.content() == FileContent.POSITION_DELETES) {
          positional.add(delete);
        } else {
          equality.add(delete);
        }
      }
      boolean needFileColumns = !positional.isEmpty() || !equality.isEmpty();
      List<String> dataPaths = scan.tasks().stream().map(t -> localPath.apply(t.file().location())).toList();
      StringBuilder sql = new StringBuilder("CREATE OR REPLACE TEMP VIEW ").append(identifier(name)).append(" AS SELECT ")
          .append(select).append(" FROM read_parquet(").append(list(dataPaths)).append(", schema=")
          .append(schemaMap(read.values(), true)).append(", hive_partitioning=false");
      if (needFileColumns) {
        sql.append(", filename=true, file_row_number=true");
      }
      sql.append(") d");
      if (!positional.isEmpty()) {
        String table = "__pos_" + index;
        loadPositions(connection, statement, table, scan, localPath);
        sql.append(" ANTI JOIN temp.main.").append(table).append(" p ON p.filename = d.filename AND p.pos = d.file_row_number");
      }
      int e = 0;
      for (DeleteFile delete : equality) {
        List<Types.NestedField> keys = delete.equalityFieldIds().stream().map(read::get).toList();
        String alias = "e" + e++;
        sql.append(" ANTI JOIN (SELECT ")
            .append(keys.stream().map(f -> col(f.fieldId())).collect(Collectors.joining(", ")))
            .append(" FROM read_parquet(").append(quote(localPath.apply(delete.location()))).append(", schema=")
            .append(schemaMap(keys, false)).append(", hive_partitioning=false)) ").append(alias).append(" ON ");
        Set<String> applies = new LinkedHashSet<>();
        for (FileScanTask task : scan.tasks()) {
          if (task.deletes().stream().anyMatch(d -> d.location().equals(delete.location()))) {
            applies.add(localPath.apply(task.file().location()));
          }
        }
        List<String> conditions = new ArrayList<>();
        if (applies.size() < scan.tasks().size()) {
          conditions.add("d.filename IN (" + applies.stream().map(DuckTypes::quote).collect(Collectors.joining(", ")) + ")");
        }
        for (Types.NestedField key : keys) {
          conditions.add(alias + "." + col(key.fieldId()) + " IS NOT DISTINCT FROM d." + col(key.fieldId()));
        }
        sql.append(String.join(" AND ", conditions));
      }
      String where = ExpressionSql.toSql(scan.filter(), scan.schema().asStruct(), true, id -> "d." + col(id));
      if (!where.equals("TRUE")) {
        sql.append(" WHERE ").append(where);
      }
      statement.execute(sql.toString());
    }
  }

  /**
   * The fields read from data files by id: every column of the version (filters and deletes may
   * need unselected ones), plus equality-delete columns the version's schema no longer has.
   */
  static Map<Integer, Types.NestedField> readFields(PlannedScan scan) {
    Map<Integer, Types.NestedField> read = new LinkedHashMap<>();
    scan.schema().columns().forEach(f -> read.put(f.fieldId(), f));
    for (DeleteFile delete : scan.deleteFiles()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        for (int id : delete.equalityFieldIds()) {
          read.computeIfAbsent(id, missing -> fieldInAnySchema(scan, missing));
        }
      }
    }
    return read;
  }

  /** Deleted positions (position delete files and v3 deletion vectors), through Iceberg's loader. */
  private static void loadPositions(DuckDBConnection connection, Statement statement, String table, PlannedScan scan,
      Function<String, String> localPath) throws SQLException {
    statement.execute("CREATE OR REPLACE TEMP TABLE " + table + " (filename VARCHAR, pos BIGINT)");
    // delete files are local by now (the warehouse or the cache)
    BaseDeleteLoader loader = new BaseDeleteLoader(
        delete -> org.apache.iceberg.Files.localInput(new java.io.File(localPath.apply(delete.location()))));
    try (DuckDBAppender appender = connection.createAppender("temp", "main", table)) {
      for (FileScanTask task : scan.tasks()) {
        List<DeleteFile> deletes = task.deletes().stream()
            .filter(d -> d.content() == FileContent.POSITION_DELETES).toList();
        if (deletes.isEmpty()) {
          continue;
        }
        String path = localPath.apply(task.file().location());
        PositionDeleteIndex positions = loader.loadPositionDeletes(deletes, task.file().location());
        SQLException[] failure = new SQLException[1];
        positions.forEach(pos -> {
          if (failure[0] != null) {
            return;
          }
          try {
            appender.beginRow();
            appender.append(path);
            appender.append(pos);
            appender.endRow();
          } catch (SQLException ex) {
            failure[0] = ex;
          }
        });
        if (failure[0] != null) {
          throw failure[0];
        }
      }
    }
  }

  private static Types.NestedField fieldInAnySchema(PlannedScan scan, int fieldId) {
    for (Schema schema : scan.table().schemas().values()) {
      Types.NestedField field = schema.findField(fieldId);
      if (field != null) {
        return field;
      }
    }
    throw new InvalidStateException("Cannot apply equality delete: no schema has field id: " + fieldId);
  }

  private static String schemaMap(Iterable<Types.NestedField> fields, boolean defaults) {
    StringBuilder map = new StringBuilder("MAP{");
    boolean first = true;
    for (Types.NestedField field : fields) {
      if (!first) {
        map.append(", ");
      }
      first = false;
      Type type = field.type();
      String sqlType = DuckTypes.sqlType(type, field.name());
      String initial = defaults && field.initialDefault() != null
          ? "CAST(" + DuckTypes.literal(type, field.initialDefault()) + " AS " + sqlType + ")" : "NULL";
      map.append(field.fieldId()).append(": {name: ").append(quote(col(field.fieldId()))).append(", type: ")
          .append(quote(sqlType)).append(", default_value: ").append(initial).append("}");
    }
    return map.append("}").toString();
  }

  private static String list(List<String> paths) {
    return paths.stream().map(DuckTypes::quote).collect(Collectors.joining(", ", "[", "]"));
  }
}
