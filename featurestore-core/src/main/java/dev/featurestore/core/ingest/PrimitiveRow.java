package dev.featurestore.core.ingest;

import java.util.List;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A reusable row of Iceberg's internal values whose fixed-width primitive columns (boolean, int,
 * long, float, double, date, time, timestamp) are kept unboxed in a {@code long} slot each, and
 * every other column as an object. {@link PrimitiveRowWriter} writes the slots to Parquet without a
 * boxed value per column and row; {@link #get} boxes on demand for everything else that reads a
 * {@link StructLike}. Slots hold longs as they are, ints and dates sign-extended, booleans as 0 or
 * 1, doubles and floats as their raw bits. Not thread-safe.
 */
final class PrimitiveRow implements StructLike {
  static final byte OBJECT = 0;
  static final byte LONG = 1;
  static final byte INT = 2;
  static final byte DOUBLE = 3;
  static final byte FLOAT = 4;
  static final byte BOOLEAN = 5;

  private final byte[] kinds;
  private final long[] slots;
  private final boolean[] nulls;
  private final Object[] objects;

  PrimitiveRow(Types.StructType struct) {
    List<Types.NestedField> fields = struct.fields();
    this.kinds = new byte[fields.size()];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = kind(fields.get(i).type());
    }
    this.slots = new long[kinds.length];
    this.nulls = new boolean[kinds.length];
    this.objects = new Object[kinds.length];
  }

  /** How a column of {@code type} is kept: in a slot (one of the primitive kinds) or as an {@link #OBJECT}. */
  static byte kind(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return BOOLEAN;
      case INTEGER:
      case DATE:
        return INT;
      case LONG:
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return LONG;
      case FLOAT:
        return FLOAT;
      case DOUBLE:
        return DOUBLE;
      default:
        return OBJECT;
    }
  }

  byte kind(int pos) {
    return kinds[pos];
  }

  /** Sets a slot column (see the class comment for the representation). */
  void setSlot(int pos, long value) {
    slots[pos] = value;
    nulls[pos] = false;
  }

  void setObject(int pos, Object value) {
    objects[pos] = value;
    nulls[pos] = value == null;
  }

  void setNull(int pos) {
    objects[pos] = null;
    nulls[pos] = true;
  }

  boolean isNull(int pos) {
    return nulls[pos];
  }

  long slot(int pos) {
    return slots[pos];
  }

  Object object(int pos) {
    return objects[pos];
  }

  @Override
  public int size() {
    return kinds.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(boxed(pos));
  }

  private Object boxed(int pos) {
    if (nulls[pos]) {
      return null;
    }
    long slot = slots[pos];
    switch (kinds[pos]) {
      case LONG:
        return slot;
      case INT:
        return (int) slot;
      case DOUBLE:
        return Double.longBitsToDouble(slot);
      case FLOAT:
        return Float.intBitsToFloat((int) slot);
      case BOOLEAN:
        return slot != 0;
      default:
        return objects[pos];
    }
  }

  @Override
  public <T> void set(int pos, T value) {
    if (value == null) {
      setNull(pos);
      return;
    }
    switch (kinds[pos]) {
      case LONG:
        setSlot(pos, (Long) value);
        break;
      case INT:
        setSlot(pos, (Integer) value);
        break;
      case DOUBLE:
        setSlot(pos, Double.doubleToRawLongBits((Double) value));
        break;
      case FLOAT:
        setSlot(pos, Float.floatToRawIntBits((Float) value));
        break;
      case BOOLEAN:
        setSlot(pos, (Boolean) value ? 1 : 0);
        break;
      default:
        setObject(pos, value);
    }
  }
}
