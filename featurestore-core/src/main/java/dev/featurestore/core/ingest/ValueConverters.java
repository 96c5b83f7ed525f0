package dev.featurestore.core.ingest;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converters from input values to Iceberg's generic representation of a column type, compiled
 * once per column. A converter throws {@link BadValue} (cheap, no stack trace) when a value does
 * not fit; the caller turns that into an {@code InvalidDataException} naming row, column and value.
 */
final class ValueConverters {
  private ValueConverters() {}

  /** Converts one non-null input value. */
  @FunctionalInterface
  interface Converter {
    Object convert(Object value);
  }

  /** A value does not fit the column type. Carries no stack trace: it is thrown per bad row. */
  static final class BadValue extends RuntimeException {
    BadValue() {
      super(null, null, false, false);
    }
  }

  private static final BadValue BAD = new BadValue();

  static BadValue bad() {
    return BAD;
  }

  /** The type name used in error messages: Iceberg's own spelling ({@code long}, {@code decimal(9, 2)}). */
  static String typeName(Type type) {
    return type.isPrimitiveType() ? type.toString() : type.typeId().toString().toLowerCase(java.util.Locale.ROOT);
  }

  static Converter forType(Type type) {
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
        return ValueConverters::toDate;
      case TIME:
        return ValueConverters::toTime;
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        boolean zoned = type.typeId() == Type.TypeID.TIMESTAMP
            ? ((Types.TimestampType) type).shouldAdjustToUTC()
            : ((Types.TimestampNanoType) type).shouldAdjustToUTC();
        return zoned ? ValueConverters::toTimestampTz : ValueConverters::toTimestamp;
      case BINARY:
        return ValueConverters::toBinary;
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return v -> toFixed(v, length);
      case LIST:
        Converter element = forType(type.asListType().elementType());
        boolean elementRequired = type.asListType().isElementRequired();
        return v -> toList(v, element, elementRequired);
      case MAP:
        Types.MapType map = type.asMapType();
        Converter key = forType(map.keyType());
        Converter value = forType(map.valueType());
        boolean valueRequired = map.isValueRequired();
        return v -> toMap(v, key, value, valueRequired);
      case STRUCT:
        return structConverter(type.asStructType());
      default:
        return v -> {
          throw BAD;
        };
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
      return ((Number) v).floatValue();
    }
    if (v instanceof CharSequence) {
      try {
        return Float.parseFloat(v.toString().trim());
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
      return ((Number) v).doubleValue();
    }
    if (v instanceof CharSequence) {
      try {
        return Double.parseDouble(v.toString().trim());
      } catch (NumberFormatException e) {
        throw BAD;
      }
    }
    throw BAD;
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
      return v;
    }
    if (v instanceof CharSequence || v instanceof Character || v instanceof Number || v instanceof Boolean
        || v instanceof UUID) {
      return v.toString();
    }
    if (v instanceof Enum<?>) {
      return ((Enum<?>) v).name();
    }
    throw BAD;
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

  private static Object toDate(Object v) {
    if (v instanceof LocalDate) {
      return v;
    }
    if (v instanceof CharSequence) {
      try {
        return LocalDate.parse(v.toString().trim());
      } catch (DateTimeParseException e) {
        throw BAD;
      }
    }
    throw BAD;
  }

  private static Object toTime(Object v) {
    if (v instanceof LocalTime) {
      return v;
    }
    if (v instanceof CharSequence) {
      try {
        return LocalTime.parse(v.toString().trim());
      } catch (DateTimeParseException e) {
        throw BAD;
      }
    }
    throw BAD;
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
    throw BAD;
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
    throw BAD;
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
      throw BAD;
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

  private static byte[] bytesOf(Object v) {
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

  private static Object toList(Object v, Converter element, boolean elementRequired) {
    Collection<?> items;
    if (v instanceof Collection<?>) {
      items = (Collection<?>) v;
    } else if (v instanceof Object[]) {
      items = java.util.Arrays.asList((Object[]) v);
    } else {
      throw BAD;
    }
    List<Object> out = new ArrayList<>(items.size());
    for (Object item : items) {
      if (item == null) {
        if (elementRequired) {
          throw BAD;
        }
        out.add(null);
      } else {
        out.add(element.convert(item));
      }
    }
    return out;
  }

  private static Object toMap(Object v, Converter key, Converter value, boolean valueRequired) {
    if (!(v instanceof Map<?, ?>)) {
      throw BAD;
    }
    Map<?, ?> in = (Map<?, ?>) v;
    Map<Object, Object> out = new LinkedHashMap<>(in.size() * 2);
    for (Map.Entry<?, ?> e : in.entrySet()) {
      if (e.getKey() == null || (e.getValue() == null && valueRequired)) {
        throw BAD;
      }
      out.put(key.convert(e.getKey()), e.getValue() == null ? null : value.convert(e.getValue()));
    }
    return out;
  }

  private static Converter structConverter(Types.StructType struct) {
    List<Types.NestedField> fields = struct.fields();
    Converter[] converters = new Converter[fields.size()];
    for (int i = 0; i < converters.length; i++) {
      converters[i] = forType(fields.get(i).type());
    }
    return v -> {
      Map<?, ?> in;
      if (v instanceof Map<?, ?>) {
        in = (Map<?, ?>) v;
      } else if (v instanceof org.apache.iceberg.data.Record) {
        org.apache.iceberg.data.Record nested = (org.apache.iceberg.data.Record) v;
        Map<String, Object> byName = new LinkedHashMap<>();
        for (Types.NestedField f : nested.struct().fields()) {
          byName.put(f.name(), nested.getField(f.name()));
        }
        in = byName;
      } else {
        throw BAD;
      }
      GenericRecord record = GenericRecord.create(struct);
      int matched = 0;
      for (int i = 0; i < converters.length; i++) {
        Types.NestedField field = fields.get(i);
        Object raw = in.get(field.name());
        if (raw == null) {
          if (in.containsKey(field.name())) {
            matched++;
          }
          if (field.isRequired()) {
            throw BAD;
          }
        } else {
          matched++;
          record.set(i, converters[i].convert(raw));
        }
      }
      if (matched != in.size()) {
        throw BAD; // an unknown nested field
      }
      return record;
    };
  }
}
