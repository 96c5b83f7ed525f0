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
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Generated rows, written straight into {@link GenericRecord}s (no maps, no conversion).
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
  private final long windowStartMicros;
  private final boolean internal;

  /** Rows of Iceberg's generic values ({@code OffsetDateTime}, {@code LocalDate}, ...). */
  SyntheticRows(Schema schema, Instant now) {
    this(schema, now, false);
  }

  /**
   * @param internal true for Iceberg's internal values (timestamps as micros, dates as days, times
   *     as micros, fixed as {@code ByteBuffer}): the same rows, without a {@code java.time} object
   *     per value, for {@link FileSink#internal}
   */
  SyntheticRows(Schema schema, Instant now, boolean internal) {
    this.internal = internal;
    this.struct = schema.asStruct();
    Instant today = now.truncatedTo(ChronoUnit.DAYS);
    this.windowStartMicros = ChronoUnit.MICROS.between(Instant.EPOCH, today) - WINDOW_MICROS;
    List<Types.NestedField> fields = struct.fields();
    @SuppressWarnings("unchecked")
    Function<SplittableRandom, Object>[] gens = new Function[fields.size()];
    for (int i = 0; i < gens.length; i++) {
      gens[i] = generator(fields.get(i), true);
    }
    this.generators = gens;
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

  GenericRecord newRecord() {
    return GenericRecord.create(struct);
  }

  /** Fills every column of {@code record}. */
  void fill(GenericRecord record, SplittableRandom random) {
    Function<SplittableRandom, Object>[] gens = generators;
    for (int i = 0; i < gens.length; i++) {
      record.set(i, gens[i].apply(random));
    }
  }

  private Function<SplittableRandom, Object> generator(Types.NestedField field, boolean topLevel) {
    Function<SplittableRandom, Object> value = valueGenerator(field.name(), field.type());
    boolean featureColumn = topLevel && (field.name().equals("feature_a") || field.name().equals("feature_b"));
    if (field.isRequired() || featureColumn) {
      return value;
    }
    return r -> r.nextInt(50) == 0 ? null : value.apply(r);
  }

  private Function<SplittableRandom, Object> valueGenerator(String name, Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return SplittableRandom::nextBoolean;
      case INTEGER:
        return name.equals("entity_id") ? r -> r.nextInt(ENTITY_KEYS) : r -> r.nextInt(1_000_000);
      case LONG:
        if (name.equals("entity_id")) {
          // the key space is small: one Long per key, not one per row (a tenth of the allocation);
          // writer threads share the array, a racing write stores an equal Long
          Long[] keys = new Long[ENTITY_KEYS];
          return r -> {
            int key = r.nextInt(ENTITY_KEYS);
            Long boxed = keys[key];
            if (boxed == null) {
              boxed = (long) key;
              keys[key] = boxed;
            }
            return boxed;
          };
        }
        return r -> r.nextLong(1_000_000_000L);
      case FLOAT:
        return r -> (float) r.nextGaussian();
      case DOUBLE:
        return SplittableRandom::nextGaussian;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        long bound = decimal.precision() >= 18 ? Long.MAX_VALUE : pow10(decimal.precision());
        return r -> new BigDecimal(BigInteger.valueOf(r.nextLong(bound)), decimal.scale());
      case STRING:
        return r -> name + "-" + r.nextInt(1_000_000);
      case UUID:
        return r -> new UUID(r.nextLong(), r.nextLong());
      case DATE:
        return internal
            ? r -> (int) Math.floorDiv(micros(r), 86_400_000_000L)
            : r -> LocalDate.ofEpochDay(Math.floorDiv(micros(r), 86_400_000_000L));
      case TIME:
        return internal
            ? r -> r.nextLong(86_400_000_000L)
            : r -> LocalTime.ofNanoOfDay(r.nextLong(86_400_000_000L) * 1000);
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        if (internal) {
          return type.typeId() == Type.TypeID.TIMESTAMP ? this::micros : r -> micros(r) * 1000;
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
