package dev.featurestore.core.partition;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Converts user values to the Java objects Iceberg's generic records hold, or to internal partition values. */
final class Values {
  private static final OffsetDateTime EPOCH = Instant.EPOCH.atOffset(ZoneOffset.UTC);

  private Values() {}

  /** The generic-record value of a column (OffsetDateTime for timestamptz, LocalDate for date, ...). */
  static Object toJava(Type type, Object value, String column) {
    try {
      return switch (type.typeId()) {
        case LONG -> value instanceof String s ? Long.parseLong(s.trim()) : integral(value).longValue();
        case INTEGER -> value instanceof String s ? Integer.parseInt(s.trim()) : Math.toIntExact(integral(value).longValue());
        case DOUBLE -> value instanceof String s ? Double.parseDouble(s.trim()) : ((Number) value).doubleValue();
        case FLOAT -> value instanceof String s ? Float.parseFloat(s.trim()) : ((Number) value).floatValue();
        case STRING -> value.toString();
        case BOOLEAN -> value instanceof String s ? Boolean.parseBoolean(s.trim()) : (Boolean) value;
        case DATE -> value instanceof String s ? LocalDate.parse(s.trim()) : (LocalDate) value;
        case DECIMAL -> value instanceof String s ? new BigDecimal(s.trim()) : (BigDecimal) value;
        case UUID -> value instanceof String s ? UUID.fromString(s.trim()) : (UUID) value;
        case TIMESTAMP -> timestamp(value, ((Types.TimestampType) type).shouldAdjustToUTC());
        case TIMESTAMP_NANO -> timestamp(value, ((Types.TimestampNanoType) type).shouldAdjustToUTC());
        default -> value;
      };
    } catch (ClassCastException | NumberFormatException | DateTimeParseException | ArithmeticException e) {
      throw new IllegalArgumentException("Cannot compute partition path: value of column " + column
          + " does not convert to " + type + ": " + value, e);
    }
  }

  /** A partition value as Iceberg stores it (ints for dates, micros for timestamps). */
  static Object toInternal(Type type, Object value, String field) {
    try {
      return switch (type.typeId()) {
        case DATE -> value instanceof LocalDate d ? (int) d.toEpochDay() : Math.toIntExact(integral(value).longValue());
        case INTEGER -> Math.toIntExact(integral(value).longValue());
        case LONG -> integral(value).longValue();
        case STRING -> value.toString();
        case TIMESTAMP -> value instanceof Number n ? n.longValue() : micros(timestamp(value, true));
        case DOUBLE -> ((Number) value).doubleValue();
        case FLOAT -> ((Number) value).floatValue();
        case UUID -> value instanceof String s ? UUID.fromString(s) : (UUID) value;
        case BINARY, FIXED -> value instanceof byte[] b ? ByteBuffer.wrap(b) : (ByteBuffer) value;
        default -> value;
      };
    } catch (ClassCastException | ArithmeticException | IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot compute partition path: value of partition field " + field
          + " does not convert to " + type + ": " + value, e);
    }
  }

  private static Number integral(Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return (Number) value;
    }
    throw new ClassCastException("not an integral number");
  }

  private static Object timestamp(Object value, boolean withZone) {
    if (withZone) {
      if (value instanceof OffsetDateTime t) {
        return t;
      } else if (value instanceof Instant t) {
        return t.atOffset(ZoneOffset.UTC);
      } else if (value instanceof ZonedDateTime t) {
        return t.toOffsetDateTime();
      } else if (value instanceof String s) {
        return OffsetDateTime.parse(s.trim());
      }
      throw new ClassCastException("not a timestamp");
    }
    if (value instanceof LocalDateTime t) {
      return t;
    } else if (value instanceof String s) {
      return LocalDateTime.parse(s.trim());
    }
    throw new ClassCastException("not a timestamp");
  }

  private static long micros(Object timestamp) {
    if (timestamp instanceof OffsetDateTime t) {
      return ChronoUnit.MICROS.between(EPOCH, t);
    }
    return ChronoUnit.MICROS.between(EPOCH, ((LocalDateTime) timestamp).atOffset(ZoneOffset.UTC));
  }
}
