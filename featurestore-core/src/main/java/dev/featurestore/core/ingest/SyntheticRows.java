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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Generated rows, written straight into {@link GenericRecord}s or {@link PrimitiveRow}s (no maps,
 * no conversion).
 *
 * <p>Rows are generated in fixed blocks of {@link #BLOCK_ROWS}, each block from its own random
 * stream derived from the seed and the block index: the same seed gives the same rows however
 * many threads write them. Times fall in the 7 whole UTC days before the start of the current UTC
 * day, so a seed reproduces the same rows all day long.
 *
 * <p>Columns named {@code entity_id} (integral) draw from a key space of {@link #ENTITY_KEYS};
 * doubles are standard gaussians; timestamps spread over the window; optional columns other
 * than those are null in about 2% of rows. Nested types get small random values.
 */
final class SyntheticRows {
  static final int BLOCK_ROWS = 1 << 18;
  static final int ENTITY_KEYS = 100_000;
  private static final long WINDOW_MICROS = ChronoUnit.DAYS.getDuration().toNanos() / 1000 * 7;

  private final Types.StructType struct;
  private final Function<SplittableRandom, Object>[] generators;
  private final ColumnFiller[] fillers;
  private final long windowStartMicros;
  private final boolean internal;

  /** Draws one column's value into a {@link PrimitiveRow}. */
  @FunctionalInterface
  private interface ColumnFiller {
    void fill(PrimitiveRow row, int pos, SplittableRandom random);
  }

  /** Rows of Iceberg's generic values ({@code OffsetDateTime}, {@code LocalDate}, ...). */
  SyntheticRows(Schema schema, Instant now) {
    this(schema, now, false);
  }

  /**
   * @param internal true for {@link PrimitiveRow}s of Iceberg's internal values (timestamps as
   *     micros, dates as days, times as micros, fixed as {@code ByteBuffer}): the same rows, without
   *     a {@code java.time} object or a boxed number per value, for {@link FileSink#internal}
   */
  SyntheticRows(Schema schema, Instant now, boolean internal) {
    this.internal = internal;
    this.struct = schema.asStruct();
    Instant today = now.truncatedTo(ChronoUnit.DAYS);
    this.windowStartMicros = ChronoUnit.MICROS.between(Instant.EPOCH, today) - WINDOW_MICROS;
    List<Types.NestedField> fields = struct.fields();
    @SuppressWarnings("unchecked")
    Function<SplittableRandom, Object>[] gens = new Function[fields.size()];
    ColumnFiller[] fill = new ColumnFiller[fields.size()];
    for (int i = 0; i < gens.length; i++) {
      gens[i] = generator(fields.get(i), true);
      fill[i] = filler(fields.get(i));
    }
    this.generators = gens;
    this.fillers = fill;
  }

  /** A random stream per block: reproducible for (seed, block), independent of threads. */
  static SplittableRandom blockRandom(long seed, long block) {
    return new SplittableRandom(mix(seed * 0x9E3779B97F4A7C15L + block));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A record of generic values (for rows of Iceberg's generic representation). */
  GenericRecord newRecord() {
    return GenericRecord.create(struct);
  }

  /** A row to {@link #fill}: a {@link PrimitiveRow} for internal values, else a generic record. */
  StructLike newRow() {
    return internal ? new PrimitiveRow(struct) : newRecord();
  }

  /** Fills every column of {@code row} (from {@link #newRow}, or a generic record for generic values). */
  void fill(StructLike row, SplittableRandom random) {
    if (row instanceof PrimitiveRow) {
      PrimitiveRow primitive = (PrimitiveRow) row;
      ColumnFiller[] fill = fillers;
      for (int i = 0; i < fill.length; i++) {
        fill[i].fill(primitive, i, random);
      }
      return;
    }
    Function<SplittableRandom, Object>[] gens = generators;
    for (int i = 0; i < gens.length; i++) {
      row.set(i, gens[i].apply(random));
    }
  }

  /** Whether a top-level column may be null (2% of rows): optional, and not one of the two features. */
  private static boolean nullable(Types.NestedField field, boolean topLevel) {
    boolean featureColumn = topLevel && (field.name().equals("feature_a") || field.name().equals("feature_b"));
    return !field.isRequired() && !featureColumn;
  }

  private Function<SplittableRandom, Object> generator(Types.NestedField field, boolean topLevel) {
    Function<SplittableRandom, Object> value = valueGenerator(field.name(), field.type());
    if (!nullable(field, topLevel)) {
      return value;
    }
    return r -> r.nextInt(50) == 0 ? null : value.apply(r);
  }

  /** The same draws as {@link #generator}, written into a {@link PrimitiveRow} (slots unboxed). */
  private ColumnFiller filler(Types.NestedField field) {
    ToLongFunction<SplittableRandom> slot = PrimitiveRow.kind(field.type()) == PrimitiveRow.OBJECT
        ? null : slotGenerator(field.name(), field.type());
    ColumnFiller value;
    if (slot != null) {
      value = (row, pos, r) -> row.setSlot(pos, slot.applyAsLong(r));
    } else {
      Function<SplittableRandom, Object> object = valueGenerator(field.name(), field.type());
      value = (row, pos, r) -> row.setObject(pos, object.apply(r));
    }
    if (!nullable(field, true)) {
      return value;
    }
    return (row, pos, r) -> {
      if (r.nextInt(50) == 0) {
        row.setNull(pos);
      } else {
        value.fill(row, pos, r);
      }
    };
  }

  /**
   * Values of the fixed-width primitive types in {@link PrimitiveRow}'s slot representation
   * (internal values; doubles and floats as raw bits); the one source of these draws.
   */
  private ToLongFunction<SplittableRandom> slotGenerator(String name, Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return r -> r.nextBoolean() ? 1 : 0;
      case INTEGER:
        return name.equals("entity_id") ? r -> r.nextInt(ENTITY_KEYS) : r -> r.nextInt(1_000_000);
      case LONG:
        return name.equals("entity_id") ? r -> r.nextInt(ENTITY_KEYS) : r -> r.nextLong(1_000_000_000L);
      case FLOAT:
        return r -> Float.floatToRawIntBits((float) r.nextGaussian());
      case DOUBLE:
        return r -> Double.doubleToRawLongBits(r.nextGaussian());
      case DATE:
        return r -> Math.floorDiv(micros(r), 86_400_000_000L);
      case TIME:
        return r -> r.nextLong(86_400_000_000L);
      case TIMESTAMP:
        return this::micros;
      case TIMESTAMP_NANO:
        return r -> micros(r) * 1000;
      default:
        throw new IllegalArgumentException("Cannot generate synthetic values: not a primitive slot type: " + type);
    }
  }

  private Function<SplittableRandom, Object> valueGenerator(String name, Type type) {
    switch (type.typeId()) {
      case BOOLEAN: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return r -> slot.applyAsLong(r) != 0;
      }
      case INTEGER: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return r -> (int) slot.applyAsLong(r);
      }
      case LONG: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return slot::applyAsLong;
      }
      case FLOAT: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return r -> Float.intBitsToFloat((int) slot.applyAsLong(r));
      }
      case DOUBLE: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return r -> Double.longBitsToDouble(slot.applyAsLong(r));
      }
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        long bound = decimal.precision() >= 18 ? Long.MAX_VALUE : pow10(decimal.precision());
        return r -> new BigDecimal(BigInteger.valueOf(r.nextLong(bound)), decimal.scale());
      case STRING:
        return r -> name + "-" + r.nextInt(1_000_000);
      case UUID:
        return r -> new UUID(r.nextLong(), r.nextLong());
      case DATE: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return internal
            ? r -> (int) slot.applyAsLong(r)
            : r -> LocalDate.ofEpochDay(slot.applyAsLong(r));
      }
      case TIME: {
        ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
        return internal
            ? slot::applyAsLong
            : r -> LocalTime.ofNanoOfDay(slot.applyAsLong(r) * 1000);
      }
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        if (internal) {
          ToLongFunction<SplittableRandom> slot = slotGenerator(name, type);
          return slot::applyAsLong;
        }
        boolean zoned = type.typeId() == Type.TypeID.TIMESTAMP
            ? ((Types.TimestampType) type).shouldAdjustToUTC()
            : ((Types.TimestampNanoType) type).shouldAdjustToUTC();
        // LocalDateTime.ofEpochSecond, not ofInstant: ofInstant builds zone rules for every value
        return zoned
            ? r -> OffsetDateTime.of(utc(micros(r)), ZoneOffset.UTC)
            : r -> utc(micros(r));
      case BINARY:
        return r -> ByteBuffer.wrap(bytes(r, 16));
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return internal ? r -> ByteBuffer.wrap(bytes(r, length)) : r -> bytes(r, length);
      case STRUCT:
        Types.StructType nested = type.asStructType();
        List<Function<SplittableRandom, Object>> fields = new ArrayList<>();
        for (Types.NestedField f : nested.fields()) {
          fields.add(generator(f, false));
        }
        return r -> {
          GenericRecord record = GenericRecord.create(nested);
          for (int i = 0; i < fields.size(); i++) {
            record.set(i, fields.get(i).apply(r));
          }
          return record;
        };
      case LIST:
        Function<SplittableRandom, Object> element = valueGenerator(name, type.asListType().elementType());
        return r -> {
          int n = r.nextInt(4);
          List<Object> list = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            list.add(element.apply(r));
          }
          return list;
        };
      case MAP:
        Function<SplittableRandom, Object> key = valueGenerator(name, type.asMapType().keyType());
        Function<SplittableRandom, Object> val = valueGenerator(name, type.asMapType().valueType());
        return r -> {
          int n = r.nextInt(4);
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = 0; i < n; i++) {
            map.put(key.apply(r), val.apply(r));
          }
          return map;
        };
      default:
        throw new IllegalArgumentException("Cannot generate synthetic values: unsupported type: " + type);
    }
  }

  private long micros(SplittableRandom r) {
    return windowStartMicros + r.nextLong(WINDOW_MICROS);
  }

  private static LocalDateTime utc(long micros) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
  }

  private static byte[] bytes(SplittableRandom r, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) r.nextInt(256);
    }
    return bytes;
  }

  private static long pow10(int n) {
    long p = 1;
    for (int i = 0; i < n; i++) {
      p *= 10;
    }
    return p;
  }
}
