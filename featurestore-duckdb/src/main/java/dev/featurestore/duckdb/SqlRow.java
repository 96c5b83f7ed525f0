package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.Row;
import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A row read from DuckDB, with values in Iceberg's generic Java types. */
final class SqlRow implements Row {
  /** Column names and how to read each column; shared by the rows of one result. */
  static final class Columns {
    /**
     * DuckDB types whose JDBC object already is the row's value (no conversion, never nested):
     * resolved once per result, because choosing the conversion per value (a string switch and
     * interface checks) cost more than reading the value (~27 ms per 100,000 four-column rows).
     */
    private static final java.util.Set<String> PLAIN = java.util.Set.of("BOOLEAN", "TINYINT", "SMALLINT", "INTEGER",
        "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "VARCHAR",
        "DATE", "TIME", "UUID");
    private static final int OBJECT = 0;
    private static final int TIMESTAMP_TZ = 1;
    private static final int TIMESTAMP = 2;
    private static final int BLOB = 3;
    private static final int CONVERTED = 4;

    final List<String> names;
    final Map<String, Integer> positions = new HashMap<>();
    private final int[] kinds;

    Columns(ResultSetMetaData meta) throws SQLException {
      int n = meta.getColumnCount();
      List<String> list = new ArrayList<>(n);
      kinds = new int[n];
      for (int i = 0; i < n; i++) {
        list.add(meta.getColumnLabel(i + 1));
        positions.putIfAbsent(list.get(i), i);
        kinds[i] = kind(meta.getColumnTypeName(i + 1));
      }
      names = Collections.unmodifiableList(list);
    }

    private static int kind(String type) {
      return switch (type) {
        case "TIMESTAMP WITH TIME ZONE" -> TIMESTAMP_TZ;
        case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S" -> TIMESTAMP;
        case "BLOB" -> BLOB;
        default -> PLAIN.contains(type) || type.startsWith("DECIMAL(") ? OBJECT : CONVERTED;
      };
    }

    Object[] read(ResultSet rs) throws SQLException {
      Object[] values = new Object[kinds.length];
      for (int i = 0; i < kinds.length; i++) {
        values[i] = value(rs, i + 1, kinds[i]);
      }
      return values;
    }

    private static Object value(ResultSet rs, int column, int kind) throws SQLException {
      Object raw = rs.getObject(column);
      if (raw == null || kind == OBJECT) {
        return raw;
      }
      return switch (kind) {
        case TIMESTAMP_TZ -> rs.getObject(column, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC);
        case TIMESTAMP -> rs.getObject(column, LocalDateTime.class);
        case BLOB -> ByteBuffer.wrap(rs.getBytes(column));
        default -> nested(raw);
      };
    }

    /** Structs as maps of field name to value (in field order), lists as lists, maps as maps. */
    private static Object nested(Object raw) throws SQLException {
      if (raw instanceof java.sql.Struct struct) {
        Map<String, Object> fields = raw instanceof org.duckdb.DuckDBStruct duck ? duck.getMap() : null;
        Map<String, Object> converted = new LinkedHashMap<>();
        if (fields != null) {
          for (Map.Entry<String, Object> field : fields.entrySet()) {
            converted.put(field.getKey(), nested(field.getValue()));
          }
        } else {
          Object[] attributes = struct.getAttributes();
          for (int i = 0; i < attributes.length; i++) {
            converted.put(Integer.toString(i), nested(attributes[i]));
          }
        }
        return converted;
      }
      if (raw instanceof java.sql.Array array) {
        Object[] elements = (Object[]) array.getArray();
        List<Object> list = new ArrayList<>(elements.length);
        for (Object element : elements) {
          list.add(nested(element));
        }
        return list;
      }
      if (raw instanceof Map<?, ?> map) {
        Map<Object, Object> converted = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          converted.put(nested(entry.getKey()), nested(entry.getValue()));
        }
        return converted;
      }
      return raw;
    }
  }

  private final Columns columns;
  private final Object[] values;

  SqlRow(Columns columns, Object[] values) {
    this.columns = columns;
    this.values = values;
  }

  @Override
  public Object get(int position) {
    return values[position];
  }

  @Override
  public Object get(String column) {
    Integer position = columns.positions.get(column);
    if (position == null) {
      throw new InvalidArgumentException("Cannot read column: no such column in the result: " + column);
    }
    return values[position];
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      map.put(columns.names.get(i), values[i]);
    }
    return map;
  }

  @Override
  public String toString() {
    return toMap().toString();
  }
}
