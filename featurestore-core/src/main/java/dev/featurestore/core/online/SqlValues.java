package dev.featurestore.core.online;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.ValueConverters;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The one conversion between Iceberg's generic Java values and SQLite column values: integers,
 * booleans, dates and times as INTEGER (days, micros), floating point as REAL, strings, uuids
 * and decimals as TEXT, binary as BLOB. Reading converts to the column's current type, so a
 * widened column (int to long, float to double) reads its old values widened.
 */
final class SqlValues {
  private SqlValues() {}

  /** The SQLite column affinity for a feature of {@code type}. */
  static String affinity(Type type) {
    switch (type.typeId()) {
      case FLOAT:
      case DOUBLE:
        return "REAL";
      case STRING:
      case UUID:
      case DECIMAL:
        return "TEXT";
      case BINARY:
      case FIXED:
        return "BLOB";
      default:
        return "INTEGER";
    }
  }

  static void bind(PreparedStatement st, int index, Object value) throws SQLException {
    if (value == null) {
      st.setNull(index, Types.NULL);
    } else if (value instanceof Integer || value instanceof Long) {
      st.setLong(index, ((Number) value).longValue());
    } else if (value instanceof Double || value instanceof Float) {
      st.setDouble(index, ((Number) value).doubleValue());
    } else if (value instanceof Boolean b) {
      st.setLong(index, b ? 1 : 0);
    } else if (value instanceof CharSequence || value instanceof UUID) {
      st.setString(index, value.toString());
    } else if (value instanceof BigDecimal d) {
      st.setString(index, d.toString());
    } else if (value instanceof OffsetDateTime t) {
      st.setLong(index, DateTimeUtil.microsFromTimestamptz(t));
    } else if (value instanceof LocalDateTime t) {
      st.setLong(index, DateTimeUtil.microsFromTimestamp(t));
    } else if (value instanceof LocalDate d) {
      st.setLong(index, d.toEpochDay());
    } else if (value instanceof LocalTime t) {
      st.setLong(index, DateTimeUtil.microsFromTime(t));
    } else if (value instanceof ByteBuffer b) {
      ByteBuffer copy = b.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      st.setBytes(index, bytes);
    } else if (value instanceof byte[] bytes) {
      st.setBytes(index, bytes);
    } else {
      throw new IllegalArgumentException("Cannot store value in online view: unsupported type: " + value.getClass().getName());
    }
  }

  /** The value of column {@code index} as {@code type}'s generic Java value; null for SQL NULL. */
  static Object read(ResultSet rs, int index, Type type) throws SQLException {
    switch (type.typeId()) {
      case INTEGER: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : (Object) (int) v;
      }
      case LONG: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : (Object) v;
      }
      case BOOLEAN: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : (Object) (v != 0);
      }
      case FLOAT: {
        double v = rs.getDouble(index);
        return rs.wasNull() ? null : (Object) (float) v;
      }
      case DOUBLE: {
        double v = rs.getDouble(index);
        return rs.wasNull() ? null : (Object) v;
      }
      case DATE: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : LocalDate.ofEpochDay(v);
      }
      case TIME: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : DateTimeUtil.timeFromMicros(v);
      }
      case TIMESTAMP: {
        long v = rs.getLong(index);
        if (rs.wasNull()) {
          return null;
        }
        return ((org.apache.iceberg.types.Types.TimestampType) type).shouldAdjustToUTC()
            ? DateTimeUtil.timestamptzFromMicros(v) : DateTimeUtil.timestampFromMicros(v);
      }
      case STRING:
        return rs.getString(index);
      case UUID: {
        String v = rs.getString(index);
        return v == null ? null : UUID.fromString(v);
      }
      case DECIMAL: {
        String v = rs.getString(index);
        return v == null ? null : new BigDecimal(v);
      }
      case BINARY:
      case FIXED: {
        byte[] v = rs.getBytes(index);
        return v == null ? null : ByteBuffer.wrap(v);
      }
      default:
        throw new IllegalArgumentException("Cannot read value from online view: unsupported type: " + type);
    }
  }

  /** A key value from a data file in the view's key form: a long (INTEGER keys) or a string (TEXT keys). */
  static Object storedKey(Object value) {
    if (value instanceof Integer || value instanceof Long) {
      return ((Number) value).longValue();
    }
    return value.toString();
  }

  /**
   * A caller's key in the view's key form, converted as lookups and ingest convert it
   * ({@link ValueConverters#internalKey}): an int or a numeric string for a long key, a string for a
   * uuid key.
   *
   * @throws InvalidArgumentException if it is null or does not convert to the key column's type
   */
  static Object callerKey(Object key, Type keyType, String keyColumn, String view) {
    return storedKey(ValueConverters.internalKey(keyType, keyColumn, key, "read online view " + view));
  }
}
