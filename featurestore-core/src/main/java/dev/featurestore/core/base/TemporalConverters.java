package dev.featurestore.core.base;

import dev.featurestore.core.base.ValueConverters.Converter;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Date;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Dates, times and timestamps: {@code java.time} values, {@code java.util.Date} and ISO-8601 text.
 * A value Iceberg cannot store is refused, not wrapped: a date beyond an int of days since the
 * epoch, a timestamp beyond a long of microseconds (about 292,000 years either side of 1970), a
 * nanosecond timestamp outside 1677-09-21 .. 2262-04-11.
 */
final class TemporalConverters {
  private static final long MAX_MICROS_SECOND = Long.MAX_VALUE / 1_000_000L - 1;
  private static final long MAX_NANOS_SECOND = Long.MAX_VALUE / 1_000_000_000L - 1;

  private TemporalConverters() {}

  static Converter forType(Type type) {
    switch (type.typeId()) {
      case DATE:
        return TemporalConverters::toDate;
      case TIME:
        return TemporalConverters::toTime;
      case TIMESTAMP: {
        boolean zoned = ((Types.TimestampType) type).shouldAdjustToUTC();
        return zoned ? v -> inRange(TemporalConverters::toTimestampTz, v, MAX_MICROS_SECOND)
            : v -> inRange(TemporalConverters::toTimestamp, v, MAX_MICROS_SECOND);
      }
      case TIMESTAMP_NANO: {
        boolean zoned = ((Types.TimestampNanoType) type).shouldAdjustToUTC();
        return zoned ? v -> inRange(TemporalConverters::toTimestampTz, v, MAX_NANOS_SECOND)
            : v -> inRange(TemporalConverters::toTimestamp, v, MAX_NANOS_SECOND);
      }
      default:
        throw new IllegalArgumentException("not a temporal type: " + type);
    }
  }

  private static Object inRange(Converter toTimestamp, Object value, long maxSecond) {
    Object timestamp;
    try {
      timestamp = toTimestamp.convert(value);
    } catch (DateTimeException e) {
      throw ValueConverters.bad("out of range"); // beyond java.time itself, e.g. Instant.MIN
    }
    long second = timestamp instanceof OffsetDateTime
        ? ((OffsetDateTime) timestamp).toEpochSecond()
        : ((LocalDateTime) timestamp).toEpochSecond(ZoneOffset.UTC);
    if (second > maxSecond || second < -maxSecond) {
      throw ValueConverters.bad("out of range");
    }
    return timestamp;
  }

  private static Object inRange(LocalDate date) {
    long day = date.toEpochDay();
    if (day > Integer.MAX_VALUE || day < Integer.MIN_VALUE) {
      throw ValueConverters.bad("out of range");
    }
    return date;
  }

  private static Object toDate(Object v) {
    if (v instanceof LocalDate) {
      return inRange((LocalDate) v);
    }
    if (v instanceof CharSequence) {
      try {
        return inRange(LocalDate.parse(v.toString().trim()));
      } catch (DateTimeParseException e) {
        throw ValueConverters.BAD;
      }
    }
    throw ValueConverters.BAD;
  }

  private static Object toTime(Object v) {
    if (v instanceof LocalTime) {
      return v;
    }
    if (v instanceof CharSequence) {
      try {
        return LocalTime.parse(v.toString().trim());
      } catch (DateTimeParseException e) {
        throw ValueConverters.BAD;
      }
    }
    throw ValueConverters.BAD;
  }

  /** timestamptz: any instant-like value, in UTC; a local date-time or string without offset is UTC. */
  private static Object toTimestampTz(Object v) {
    if (v instanceof OffsetDateTime) {
      OffsetDateTime odt = (OffsetDateTime) v;
      return odt.getOffset().equals(ZoneOffset.UTC) ? odt : odt.withOffsetSameInstant(ZoneOffset.UTC);
    }
    if (v instanceof Instant) {
      return ((Instant) v).atOffset(ZoneOffset.UTC);
    }
    if (v instanceof ZonedDateTime) {
      return ((ZonedDateTime) v).toOffsetDateTime().withOffsetSameInstant(ZoneOffset.UTC);
    }
    if (v instanceof LocalDateTime) {
      return ((LocalDateTime) v).atOffset(ZoneOffset.UTC);
    }
    if (v instanceof Date) {
      return ((Date) v).toInstant().atOffset(ZoneOffset.UTC);
    }
    if (v instanceof CharSequence) {
      return parseTimestamp(v.toString()).withOffsetSameInstant(ZoneOffset.UTC);
    }
    throw ValueConverters.BAD;
  }

  /** timestamp (no zone): a local date-time; instant-like values are taken in UTC. */
  private static Object toTimestamp(Object v) {
    if (v instanceof LocalDateTime) {
      return v;
    }
    if (v instanceof OffsetDateTime) {
      return ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (v instanceof Instant) {
      return LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
    }
    if (v instanceof ZonedDateTime) {
      return ((ZonedDateTime) v).withZoneSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (v instanceof Date) {
      return LocalDateTime.ofInstant(((Date) v).toInstant(), ZoneOffset.UTC);
    }
    if (v instanceof CharSequence) {
      return parseTimestamp(v.toString()).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    throw ValueConverters.BAD;
  }

  /**
   * ISO-8601 date-time with or without offset ({@code Z}, {@code +02:00}), a space allowed instead
   * of {@code T}, or a plain date (midnight). No offset means UTC.
   */
  static OffsetDateTime parseTimestamp(String text) {
    String s = text.trim();
    if (s.length() > 10 && s.charAt(10) == ' ') {
      s = s.substring(0, 10) + 'T' + s.substring(11);
    }
    try {
      if (s.length() == 10) {
        return LocalDate.parse(s).atStartOfDay().atOffset(ZoneOffset.UTC);
      }
      if (hasOffset(s)) {
        return OffsetDateTime.parse(s);
      }
      return LocalDateTime.parse(s).atOffset(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw ValueConverters.BAD;
    }
  }

  private static boolean hasOffset(String s) {
    char last = s.charAt(s.length() - 1);
    if (last == 'Z' || last == 'z') {
      return true;
    }
    // +hh:mm / -hh:mm / +hhmm / +hh after the time part
    int t = s.indexOf('T');
    if (t < 0) {
      return false;
    }
    return s.indexOf('+', t) > 0 || s.indexOf('-', t) > 0;
  }

}
