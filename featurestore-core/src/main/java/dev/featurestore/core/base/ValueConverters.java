package dev.featurestore.core.base;

import dev.featurestore.InvalidArgumentException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The one conversion from user values (Java objects, CSV text, JSON values) to Iceberg's generic
 * representation of a column type, compiled once per column and shared by ingest, partition paths
 * and CDC. A converter throws {@link BadValue} (cheap, no stack trace) when a value does not fit;
 * the caller turns that into an {@code InvalidDataException} naming row, column and value.
 *
 * <p>Nothing is stored other than it was given: numbers out of a type's range (text or
 * {@code BigDecimal} such as {@code 1e400} for a double), strings with unpaired surrogates and
 * timestamps outside what Iceberg can store are refused rather than rounded or replaced.
 * Temporal types are in {@link TemporalConverters}, nested ones in {@link NestedConverters}.
 */
public final class ValueConverters {
  private ValueConverters() {}

  /** Converts one non-null input value. */
  @FunctionalInterface
  public interface Converter {
    Object convert(Object value);
  }

  /**
   * A value does not fit the column type. Carries no stack trace: it is thrown per bad row. The
   * reason, when there is one, says why beyond "wrong type" ("out of range", "unpaired surrogate").
   */
  public static final class BadValue extends RuntimeException {
    private final String reason;

    BadValue(String reason) {
      super(reason, null, false, false);
      this.reason = reason;
    }

    /** Why the value does not fit, beyond its type, if known. */
    public Optional<String> reason() {
      return Optional.ofNullable(reason);
    }
  }

  static final BadValue BAD = new BadValue(null);

  static BadValue bad() {
    return BAD;
  }

  static BadValue bad(String reason) {
    return new BadValue(reason);
  }

  /** The type name used in error messages: Iceberg's own spelling ({@code long}, {@code decimal(9, 2)}). */
  public static String typeName(Type type) {
    return type.isPrimitiveType() ? type.toString() : type.typeId().toString().toLowerCase(java.util.Locale.ROOT);
  }

  public static Converter forType(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return ValueConverters::toBoolean;
      case INTEGER:
        return ValueConverters::toInt;
      case LONG:
        return ValueConverters::toLong;
      case FLOAT:
        return ValueConverters::toFloat;
      case DOUBLE:
        return ValueConverters::toDouble;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return v -> toDecimal(v, decimal.precision(), decimal.scale());
      case STRING:
        return ValueConverters::toStringValue;
      case UUID:
        return ValueConverters::toUuid;
      case DATE:
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return TemporalConverters.forType(type);
      case BINARY:
        return ValueConverters::toBinary;
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return v -> toFixed(v, length);
      case LIST:
      case MAP:
      case STRUCT:
        return NestedConverters.forType(type);
      default:
        return v -> {
          throw BAD;
        };
    }
  }

  /**
   * Iceberg's generic values of {@code type} to its internal ones, as {@code InternalRecordWrapper}
   * converts them: days for a date, micros (nanos) for a time or timestamp, a {@code ByteBuffer}
   * for fixed; other values are the same.
   */
  public static Converter toInternal(Type type) {
    switch (type.typeId()) {
      case DATE:
        return v -> DateTimeUtil.daysFromDate((LocalDate) v);
      case TIME:
        return v -> DateTimeUtil.microsFromTime((LocalTime) v);
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? v -> DateTimeUtil.microsFromTimestamptz((OffsetDateTime) v)
            : v -> DateTimeUtil.microsFromTimestamp((LocalDateTime) v);
      case TIMESTAMP_NANO:
        return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? v -> DateTimeUtil.nanosFromTimestamptz((OffsetDateTime) v)
            : v -> DateTimeUtil.nanosFromTimestamp((LocalDateTime) v);
      case FIXED:
        return v -> v instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : v;
      default:
        return v -> v;
    }
  }

  /**
   * A user's value of a primitive {@code type} as Iceberg holds it internally (what expressions,
   * column statistics, partition values and bloom filters compare): converted as ingest would
   * store it ({@link #forType}), then {@link #toInternal}.
   *
   * @throws BadValue if the value does not fit the type
   */
  public static Converter internalForType(Type type) {
    Converter generic = forType(type);
    Converter internal = toInternal(type);
    return v -> internal.convert(generic.convert(v));
  }

  /**
   * {@code key} as Iceberg holds values of a primitive column (days, micros, a {@code ByteBuffer}
   * for fixed): converted exactly as ingest would store it ({@link #internalForType}),
   * so every Java form of a value ingest accepts ({@code Instant}, {@code OffsetDateTime} at any
   * offset or ISO text for a timestamptz; an int for a long) finds the rows it was stored as.
   * Point lookups, deletes by key, bloom-filter probes and online-view reads all convert here.
   *
   * @param action what the caller does, for the message ({@code "look up rows of table a.b"})
   * @throws InvalidArgumentException if the key does not convert:
   *     {@code Cannot <action>: key does not convert to column <column> (<type>): <key>}
   */
  public static Object internalKey(Type type, String column, Object key, String action) {
    InvalidArgumentException.requireNonNull(key, action, "key");
    try {
      return internalForType(type).convert(key);
    } catch (BadValue e) {
      throw new InvalidArgumentException("Cannot " + action + ": key does not convert to column " + column + " ("
          + typeName(type) + "): " + e.reason().map(r -> r + ": ").orElse("")
          + (key instanceof byte[] bytes ? Arrays.toString(bytes) : key));
    }
  }

  private static Object toBoolean(Object v) {
    if (v instanceof Boolean) {
      return v;
    }
    if (v instanceof CharSequence) {
      String s = v.toString().trim();
      if (s.equalsIgnoreCase("true")) {
        return Boolean.TRUE;
      }
      if (s.equalsIgnoreCase("false")) {
        return Boolean.FALSE;
      }
    }
    throw BAD;
  }

  private static Object toInt(Object v) {
    if (v instanceof Integer) {
      return v;
    }
    long l = exactLong(v);
    if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
      throw BAD;
    }
    return (int) l;
  }

  private static Object toLong(Object v) {
    if (v instanceof Long) {
      return v;
    }
    return exactLong(v);
  }

  /** Integral numbers as they are; fractional numbers only when whole; strings parse. */
  private static long exactLong(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    try {
      if (v instanceof BigInteger) {
        return ((BigInteger) v).longValueExact();
      }
      if (v instanceof BigDecimal) {
        return ((BigDecimal) v).longValueExact();
      }
      if (v instanceof Double || v instanceof Float) {
        double d = ((Number) v).doubleValue();
        if (Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) < 0x1p63) {
          return (long) d;
        }
        throw BAD;
      }
      if (v instanceof CharSequence) {
        return Long.parseLong(v.toString().trim());
      }
    } catch (ArithmeticException | NumberFormatException e) {
      throw BAD;
    }
    throw BAD;
  }

  private static Object toFloat(Object v) {
    if (v instanceof Float) {
      return v;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).floatValue();
    }
    if (v instanceof Double) {
      double d = (Double) v;
      float f = (float) d;
      // only doubles that a float represents exactly (or NaN): no silent rounding
      if (f == d || Double.isNaN(d)) {
        return f;
      }
      throw BAD;
    }
    if (v instanceof BigDecimal || v instanceof BigInteger) {
      float f = ((Number) v).floatValue();
      return inRange(f, v.toString());
    }
    if (v instanceof CharSequence) {
      String text = v.toString().trim();
      try {
        return inRange(Float.parseFloat(text), text);
      } catch (NumberFormatException e) {
        throw BAD;
      }
    }
    throw BAD;
  }

  private static Object toDouble(Object v) {
    if (v instanceof Double) {
      return v;
    }
    if (v instanceof Number) {
      if (v instanceof Float) {
        // 1.1f -> 1.1, not 1.100000023841858
        return Double.parseDouble(v.toString());
      }
      if (v instanceof BigDecimal || v instanceof BigInteger) {
        return inRange(((Number) v).doubleValue(), v.toString());
      }
      return ((Number) v).doubleValue();
    }
    if (v instanceof CharSequence) {
      String text = v.toString().trim();
      try {
        return inRange(Double.parseDouble(text), text);
      } catch (NumberFormatException e) {
        throw BAD;
      }
    }
    throw BAD;
  }

  /**
   * A finite number written in text (or as a BigDecimal) that overflowed to infinity or
   * underflowed to zero is out of the type's range; the literals Infinity and NaN stay accepted.
   */
  private static Double inRange(double d, String text) {
    if (outOfRange(d, text)) {
      throw bad("out of range");
    }
    return d;
  }

  /** True when {@code text}, a finite decimal number, parsed to infinity or to a zero it is not. */
  public static boolean outOfRange(double parsed, String text) {
    return Double.isInfinite(parsed) ? !text.contains("Infinity") : parsed == 0 && nonZero(text);
  }

  private static Float inRange(float f, String text) {
    if (Float.isInfinite(f) ? !text.contains("Infinity") : f == 0 && nonZero(text)) {
      throw bad("out of range");
    }
    return f;
  }

  /** True when the mantissa of a decimal number's text has a non-zero digit. */
  private static boolean nonZero(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 'e' || c == 'E' || c == 'p' || c == 'P') {
        return false;
      }
      if (c >= '1' && c <= '9') {
        return true;
      }
    }
    return false;
  }

  private static Object toDecimal(Object v, int precision, int scale) {
    BigDecimal d;
    try {
      if (v instanceof BigDecimal) {
        d = (BigDecimal) v;
      } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
        d = BigDecimal.valueOf(((Number) v).longValue());
      } else if (v instanceof BigInteger) {
        d = new BigDecimal((BigInteger) v);
      } else if (v instanceof Double || v instanceof Float) {
        d = new BigDecimal(v.toString());
      } else if (v instanceof CharSequence) {
        d = new BigDecimal(v.toString().trim());
      } else {
        throw BAD;
      }
      // the scale must fit without rounding; trailing zeros may be added or removed
      BigDecimal scaled = d.setScale(scale);
      if (scaled.precision() > precision) {
        throw BAD;
      }
      return scaled;
    } catch (ArithmeticException | NumberFormatException e) {
      throw BAD;
    }
  }

  private static Object toStringValue(Object v) {
    if (v instanceof String) {
      return wellFormed((String) v);
    }
    if (v instanceof CharSequence || v instanceof Character) {
      return wellFormed(v.toString());
    }
    if (v instanceof Number || v instanceof Boolean || v instanceof UUID) {
      return v.toString();
    }
    if (v instanceof Enum<?>) {
      return ((Enum<?>) v).name();
    }
    throw BAD;
  }

  /**
   * A string Parquet can store as UTF-8 without replacing characters: every surrogate is paired.
   * (Parquet's encoder would silently write {@code ?} for an unpaired one.)
   */
  public static String wellFormed(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          throw bad("unpaired surrogate at index " + i);
        }
      }
    }
    return s;
  }

  private static Object toUuid(Object v) {
    if (v instanceof UUID) {
      return v;
    }
    if (v instanceof CharSequence) {
      try {
        return UUID.fromString(v.toString().trim());
      } catch (IllegalArgumentException e) {
        throw BAD;
      }
    }
    byte[] bytes = bytesOf(v);
    if (bytes != null && bytes.length == 16) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      return new UUID(buffer.getLong(), buffer.getLong());
    }
    throw BAD;
  }

  private static Object toBinary(Object v) {
    if (v instanceof ByteBuffer) {
      return v;
    }
    if (v instanceof CharSequence) {
      try {
        return ByteBuffer.wrap(Base64.getDecoder().decode(v.toString().trim()));
      } catch (IllegalArgumentException e) {
        throw BAD;
      }
    }
    byte[] bytes = bytesOf(v);
    if (bytes != null) {
      return ByteBuffer.wrap(bytes);
    }
    throw BAD;
  }

  private static Object toFixed(Object v, int length) {
    byte[] bytes;
    if (v instanceof CharSequence) {
      try {
        bytes = Base64.getDecoder().decode(v.toString().trim());
      } catch (IllegalArgumentException e) {
        throw BAD;
      }
    } else {
      bytes = bytesOf(v);
    }
    if (bytes == null || bytes.length != length) {
      throw BAD;
    }
    return bytes;
  }

  static byte[] bytesOf(Object v) {
    if (v instanceof byte[]) {
      return (byte[]) v;
    }
    if (v instanceof ByteBuffer) {
      ByteBuffer buffer = ((ByteBuffer) v).duplicate();
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
    }
    return null;
  }

}
