package dev.featurestore.core.ingest;

import dev.featurestore.core.base.ValueConverters;
import java.time.LocalDate;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Computes a row's partition values, exactly as Iceberg's transforms do, without Iceberg's
 * per-row detours: Iceberg 1.12's day/hour/month/year transforms turn each microsecond value into
 * an {@code OffsetDateTime} (allocating zone rules) and {@link InternalRecordWrapper} converts every
 * temporal column of the row, partitioned or not. Here only the partition source columns are read;
 * time transforms of values at or after the epoch are plain arithmetic, and everything else (values
 * before the epoch, where Iceberg's own rounding applies; bucket, truncate, void; nested source
 * columns) goes through Iceberg's bound transform functions.
 *
 * <p>Rows hold either Iceberg's generic values ({@code OffsetDateTime}, {@code LocalDate}, as
 * {@code GenericRecord} does) or its internal ones (micros, days; a {@link PrimitiveRow}'s time
 * columns are read from their slots, unboxed). Not thread-safe: the values of
 * the last row are kept in a reused array.
 */
final class PartitionFunction {
  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

  /** One partition field: how to get its value from a row. */
  @FunctionalInterface
  private interface FieldFunction {
    Object apply(StructLike row);
  }

  private final PartitionSpec spec;
  private final FieldFunction[] fields;
  private final Object[] values;
  /** Iceberg's own path when a source column is nested: a key over the (wrapped) row. */
  private final PartitionKey fallbackKey;
  private final InternalRecordWrapper fallbackWrapper;

  /**
   * @param internalValues true when rows hold Iceberg's internal values (micros, days), false for
   *     generic ones
   */
  PartitionFunction(PartitionSpec spec, Schema schema, boolean internalValues) {
    this.spec = spec;
    List<PartitionField> partitionFields = spec.fields();
    this.values = new Object[partitionFields.size()];
    List<Types.NestedField> columns = schema.columns();
    FieldFunction[] functions = new FieldFunction[partitionFields.size()];
    boolean nested = false;
    for (int i = 0; i < functions.length; i++) {
      PartitionField field = partitionFields.get(i);
      int position = topLevelPosition(columns, field.sourceId());
      if (position < 0) {
        nested = true;
        break;
      }
      functions[i] = fieldFunction(field, columns.get(position).type(), position, internalValues);
    }
    if (nested) {
      this.fields = null;
      this.fallbackKey = new PartitionKey(spec, schema);
      this.fallbackWrapper = internalValues ? null : new InternalRecordWrapper(schema.asStruct());
    } else {
      this.fields = functions;
      this.fallbackKey = null;
      this.fallbackWrapper = null;
    }
  }

  /** The number of partition values. */
  int size() {
    return values.length;
  }

  /**
   * Computes the partition values of {@code row}; read them with {@link #value(int)} until the next
   * call.
   */
  void partition(StructLike row) {
    if (fields != null) {
      for (int i = 0; i < fields.length; i++) {
        values[i] = fields[i].apply(row);
      }
    } else {
      fallbackKey.partition(fallbackWrapper == null ? row : fallbackWrapper.wrap(row));
      for (int i = 0; i < values.length; i++) {
        values[i] = fallbackKey.get(i, Object.class);
      }
    }
  }

  /** The {@code i}th partition value of the last row (Iceberg's internal representation). */
  Object value(int i) {
    return values[i];
  }

  PartitionSpec spec() {
    return spec;
  }

  private static int topLevelPosition(List<Types.NestedField> columns, int fieldId) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    return -1;
  }

  @SuppressWarnings("unchecked")
  private static FieldFunction fieldFunction(PartitionField field, Type sourceType, int position,
      boolean internalValues) {
    Function<Object, Object> toInternal = internalValues ? v -> v : ValueConverters.toInternal(sourceType)::convert;
    Transform<Object, Object> transform = (Transform<Object, Object>) field.transform();
    Function<Object, Object> iceberg = transform.bind(sourceType)::apply;
    String name = transform.toString();
    Type.TypeID source = sourceType.typeId();
    boolean timestamp = source == Type.TypeID.TIMESTAMP;
    boolean date = source == Type.TypeID.DATE;
    if (transform.isIdentity()) {
      return row -> {
        Object value = row.get(position, Object.class);
        return value == null ? null : toInternal.apply(value);
      };
    }
    java.util.function.LongToIntFunction fast = null;
    if (timestamp && name.equals("day")) {
      fast = micros -> (int) (micros / MICROS_PER_DAY);
    } else if (timestamp && name.equals("hour")) {
      fast = micros -> (int) (micros / MICROS_PER_HOUR);
    } else if (timestamp && name.equals("month")) {
      fast = micros -> months(LocalDate.ofEpochDay(micros / MICROS_PER_DAY));
    } else if (timestamp && name.equals("year")) {
      fast = micros -> LocalDate.ofEpochDay(micros / MICROS_PER_DAY).getYear() - 1970;
    } else if (date && name.equals("day")) {
      fast = days -> (int) days;
    } else if (date && name.equals("month")) {
      fast = days -> months(LocalDate.ofEpochDay(days));
    } else if (date && name.equals("year")) {
      fast = days -> LocalDate.ofEpochDay(days).getYear() - 1970;
    }
    if (fast == null) {
      return row -> {
        Object value = row.get(position, Object.class);
        return iceberg.apply(value == null ? null : toInternal.apply(value));
      };
    }
    // values at or after the epoch: plain arithmetic, boxed through a small cache (rows of a batch
    // fall in few days or hours; a new Integer per row was a tenth of a synthetic ingest's
    // allocation); before the epoch: Iceberg's own rounding
    java.util.function.LongToIntFunction arithmetic = fast;
    Integer[] boxes = new Integer[64];
    return row -> {
      long v;
      if (row instanceof PrimitiveRow) {
        // internal values in an unboxed slot (timestamps as micros, dates as days)
        PrimitiveRow primitive = (PrimitiveRow) row;
        if (primitive.isNull(position)) {
          return iceberg.apply(null);
        }
        v = primitive.slot(position);
        if (v < 0) {
          return iceberg.apply(primitive.get(position, Object.class));
        }
      } else {
        Object value = row.get(position, Object.class);
        if (value == null) {
          return iceberg.apply(null);
        }
        Object internal = toInternal.apply(value);
        v = internal instanceof Integer ? (Integer) internal : (Long) internal;
        if (v < 0) {
          return iceberg.apply(internal);
        }
      }
      int result = arithmetic.applyAsInt(v);
      int slot = result & 63;
      Integer box = boxes[slot];
      if (box == null || box != result) {
        box = result;
        boxes[slot] = box;
      }
      return box;
    };
  }

  private static int months(LocalDate date) {
    return (date.getYear() - 1970) * 12 + date.getMonthValue() - 1;
  }
}
