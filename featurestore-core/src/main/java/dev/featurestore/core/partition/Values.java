package dev.featurestore.core.partition;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.ValueConverters;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Partition path values, converted by the one conversion ingest uses ({@link ValueConverters}):
 * a path is computed from exactly the values an ingest of the same row would store.
 */
final class Values {
  private static final OffsetDateTime EPOCH = Instant.EPOCH.atOffset(ZoneOffset.UTC);

  private Values() {}

  /** The generic-record value of a column (OffsetDateTime for timestamptz, LocalDate for date, ...). */
  static Object toJava(Type type, Object value, String column) {
    try {
      return ValueConverters.forType(type).convert(value);
    } catch (ValueConverters.BadValue e) {
      throw new InvalidArgumentException("Cannot compute partition path: value of column " + column
          + " does not convert to " + type + ": " + e.reason().map(r -> r + ": ").orElse("") + value);
    }
  }

  /**
   * A partition value as Iceberg stores it: days since the epoch for dates, microseconds for
   * timestamps (a number is taken as already stored so), the converted value otherwise.
   */
  static Object toInternal(Type type, Object value, String field) {
    try {
      switch (type.typeId()) {
        case DATE:
          return value instanceof Number n ? Math.toIntExact(n.longValue())
              : (int) ((LocalDate) ValueConverters.forType(type).convert(value)).toEpochDay();
        case TIMESTAMP:
        case TIMESTAMP_NANO:
          if (value instanceof Number n) {
            return n.longValue();
          }
          Object timestamp = ValueConverters.forType(Types.TimestampType.withZone()).convert(value);
          long micros = ChronoUnit.MICROS.between(EPOCH, (OffsetDateTime) timestamp);
          return type.typeId() == Type.TypeID.TIMESTAMP ? micros : Math.multiplyExact(micros, 1000L);
        default:
          Object converted = ValueConverters.forType(type).convert(value);
          return converted instanceof byte[] b ? ByteBuffer.wrap(b) : converted;
      }
    } catch (ValueConverters.BadValue | ArithmeticException e) {
      String reason = e instanceof ValueConverters.BadValue bad ? bad.reason().map(r -> r + ": ").orElse("") : "out of range: ";
      throw new InvalidArgumentException("Cannot compute partition path: value of partition field " + field
          + " does not convert to " + type + ": " + reason + value);
    }
  }
}
