package dev.featurestore.core.inspect;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Iceberg's internal values (what metadata-table rows hold: days, microseconds, {@code
 * CharSequence}, {@code StructLike}) as its generic Java types, the types every result of the
 * library uses ({@link dev.featurestore.Row}).
 */
final class InternalValues {
  private InternalValues() {}

  static Record toRecord(Types.StructType struct, StructLike row) {
    GenericRecord record = GenericRecord.create(struct);
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      record.set(i, toGeneric(fields.get(i).type(), row.get(i, Object.class)));
    }
    return record;
  }

  static Object toGeneric(Type type, Object value) {
    if (value == null) {
      return null;
    }
    switch (type.typeId()) {
      case STRING:
        return value.toString();
      case DATE:
        return value instanceof Integer days ? DateTimeUtil.dateFromDays(days) : value;
      case TIME:
        return value instanceof Long micros ? DateTimeUtil.timeFromMicros(micros) : value;
      case TIMESTAMP:
        if (value instanceof Long micros) {
          return ((Types.TimestampType) type).shouldAdjustToUTC()
              ? DateTimeUtil.timestamptzFromMicros(micros) : DateTimeUtil.timestampFromMicros(micros);
        }
        return value;
      case TIMESTAMP_NANO:
        if (value instanceof Long nanos) {
          return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
              ? DateTimeUtil.timestamptzFromNanos(nanos) : DateTimeUtil.timestampFromNanos(nanos);
        }
        return value;
      case FIXED:
        return value instanceof ByteBuffer buffer ? ByteBuffers.toByteArray(buffer) : value;
      case BINARY:
        return value instanceof ByteBuffer buffer ? buffer.duplicate() : value;
      case STRUCT:
        return value instanceof StructLike struct && !(value instanceof Record)
            ? toRecord(type.asStructType(), struct) : value;
      case LIST: {
        Type element = type.asListType().elementType();
        List<Object> list = new ArrayList<>();
        for (Object item : (Iterable<?>) value) {
          list.add(toGeneric(element, item));
        }
        return list;
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        Map<Object, Object> copy = new LinkedHashMap<>();
        ((Map<?, ?>) value).forEach((k, v) -> copy.put(toGeneric(map.keyType(), k), toGeneric(map.valueType(), v)));
        return copy;
      }
      default:
        return value;
    }
  }
}
