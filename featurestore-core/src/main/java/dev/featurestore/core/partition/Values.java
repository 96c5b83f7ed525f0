package dev.featurestore.core.partition;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.ValueConverters;
import org.apache.iceberg.types.Type;

/**
 * Partition path values, converted by the one conversion ingest uses ({@link ValueConverters}):
 * a path is computed from exactly the values an ingest of the same row would store.
 */
final class Values {
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
   * A partition value as Iceberg stores it, by the one conversion to Iceberg's internal values that
   * keys use ({@link ValueConverters#internalForType}: days for dates, micros for times and
   * timestamps, nanos for nanosecond timestamps); a number for a date or timestamp field is taken as
   * already stored so.
   */
  static Object toInternal(Type type, Object value, String field) {
    try {
      if (value instanceof Number n) {
        switch (type.typeId()) {
          case DATE:
            return Math.toIntExact(n.longValue());
          case TIMESTAMP:
          case TIMESTAMP_NANO:
            return n.longValue();
          default:
            break;
        }
      }
      return ValueConverters.internalForType(type).convert(value);
    } catch (ValueConverters.BadValue | ArithmeticException e) {
      String reason = e instanceof ValueConverters.BadValue bad ? bad.reason().map(r -> r + ": ").orElse("") : "out of range: ";
      throw new InvalidArgumentException("Cannot compute partition path: value of partition field " + field
          + " does not convert to " + type + ": " + reason + value);
    }
  }
}
