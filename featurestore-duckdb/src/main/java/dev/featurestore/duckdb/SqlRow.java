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
    final List<String> names;
    final Map<String, Integer> positions = new HashMap<>();
    private final String[] types;

    Columns(ResultSetMetaData meta) throws SQLException {
      int n = meta.getColumnCount();
      List<String> list = new ArrayList<>(n);
      types = new String[n];
      for (int i = 0; i < n; i++) {
        list.add(meta.getColumnLabel(i + 1));
        positions.putIfAbsent(list.get(i), i);
        types[i] = meta.getColumnTypeName(i + 1);
      }
      names = Collections.unmodifiableList(list);
    }

    Object[] read(ResultSet rs) throws SQLException {
      Object[] values = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        values[i] = value(rs, i + 1, types[i]);
      }
      return values;
    }

    private static Object value(ResultSet rs, int column, String type) throws SQLException {
      Object raw = rs.getObject(column);
      if (raw == null) {
        return null;
      }
      return switch (type) {
        case "TIMESTAMP WITH TIME ZONE" -> rs.getObject(column, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC);
        case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S" -> rs.getObject(column, LocalDateTime.class);
        case "BLOB" -> ByteBuffer.wrap(rs.getBytes(column));
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
