package dev.featurestore.duckdb;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/** Iceberg types and values as DuckDB SQL text. */
final class DuckTypes {
  private DuckTypes() {}

  /** The DuckDB type a column of this Iceberg type reads as. */
  static String sqlType(Type type, String column) {
    return switch (type.typeId()) {
      case BOOLEAN -> "BOOLEAN";
      case INTEGER -> "INTEGER";
      case LONG -> "BIGINT";
      case FLOAT -> "FLOAT";
      case DOUBLE -> "DOUBLE";
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield "DECIMAL(" + decimal.precision() + "," + decimal.scale() + ")";
      }
      case DATE -> "DATE";
      case TIME -> "TIME";
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMP WITH TIME ZONE" : "TIMESTAMP";
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC()
          ? "TIMESTAMP WITH TIME ZONE" : "TIMESTAMP_NS";
      case STRING -> "VARCHAR";
      case UUID -> "UUID";
      case FIXED, BINARY -> "BLOB";
      case STRUCT -> {
        StringBuilder struct = new StringBuilder("STRUCT(");
        boolean first = true;
        for (Types.NestedField field : type.asStructType().fields()) {
          if (!first) {
            struct.append(", ");
          }
          first = false;
          struct.append(identifier(field.name())).append(' ').append(sqlType(field.type(), column + "." + field.name()));
        }
        yield struct.append(")").toString();
      }
      case LIST -> sqlType(type.asListType().elementType(), column + ".element") + "[]";
      case MAP -> "MAP(" + sqlType(type.asMapType().keyType(), column + ".key") + ", "
          + sqlType(type.asMapType().valueType(), column + ".value") + ")";
      default -> throw new UnsupportedOperationException(
          "Cannot query column with SQL: type not supported by the DuckDB adapter: " + column + " " + type);
    };
  }

  /** A SQL literal for a value in Iceberg's internal representation (as in literals and defaults). */
  static String literal(Type type, Object value) {
    if (value == null) {
      return "NULL";
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ((Boolean) value) ? "TRUE" : "FALSE";
      case INTEGER, LONG -> value.toString();
      case FLOAT, DOUBLE -> "CAST('" + value + "' AS " + sqlType(type, "") + ")";
      case DECIMAL -> "CAST('" + ((BigDecimal) value).toPlainString() + "' AS " + sqlType(type, "") + ")";
      case STRING -> quote(value.toString());
      case DATE -> "DATE '" + DateTimeUtil.dateFromDays((Integer) value) + "'";
      case TIME -> "TIME '" + DateTimeUtil.timeFromMicros((Long) value) + "'";
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? "TIMESTAMPTZ '" + DateTimeUtil.timestamptzFromMicros((Long) value) + "'"
          : "TIMESTAMP '" + DateTimeUtil.timestampFromMicros((Long) value) + "'";
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC()
          ? "TIMESTAMPTZ '" + DateTimeUtil.timestamptzFromNanos((Long) value) + "'"
          : "TIMESTAMP_NS '" + DateTimeUtil.timestampFromNanos((Long) value) + "'";
      case UUID -> "CAST('" + (UUID) value + "' AS UUID)";
      case FIXED, BINARY -> {
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        yield "from_hex('" + HexFormat.of().formatHex(bytes) + "')";
      }
      default -> throw new UnsupportedOperationException("Cannot write SQL literal: unsupported type: " + type);
    };
  }

  static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  static String identifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
