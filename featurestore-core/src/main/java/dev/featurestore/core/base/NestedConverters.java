package dev.featurestore.core.base;

import dev.featurestore.core.base.ValueConverters.Converter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Lists, maps and structs: each element converts with its own type's converter. */
final class NestedConverters {
  private NestedConverters() {}

  static Converter forType(Type type) {
    switch (type.typeId()) {
      case LIST: {
        Converter element = ValueConverters.forType(type.asListType().elementType());
        boolean elementRequired = type.asListType().isElementRequired();
        return v -> toList(v, element, elementRequired);
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        Converter key = ValueConverters.forType(map.keyType());
        Converter value = ValueConverters.forType(map.valueType());
        boolean valueRequired = map.isValueRequired();
        return v -> toMap(v, key, value, valueRequired);
      }
      case STRUCT:
        return structConverter(type.asStructType());
      default:
        throw new IllegalArgumentException("not a nested type: " + type);
    }
  }

  private static Object toList(Object v, Converter element, boolean elementRequired) {
    Collection<?> items;
    if (v instanceof Collection<?>) {
      items = (Collection<?>) v;
    } else if (v instanceof Object[]) {
      items = java.util.Arrays.asList((Object[]) v);
    } else {
      throw ValueConverters.BAD;
    }
    List<Object> out = new ArrayList<>(items.size());
    for (Object item : items) {
      if (item == null) {
        if (elementRequired) {
          throw ValueConverters.BAD;
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
      throw ValueConverters.BAD;
    }
    Map<?, ?> in = (Map<?, ?>) v;
    Map<Object, Object> out = new LinkedHashMap<>(in.size() * 2);
    for (Map.Entry<?, ?> e : in.entrySet()) {
      if (e.getKey() == null || (e.getValue() == null && valueRequired)) {
        throw ValueConverters.BAD;
      }
      out.put(key.convert(e.getKey()), e.getValue() == null ? null : value.convert(e.getValue()));
    }
    return out;
  }

  private static Converter structConverter(Types.StructType struct) {
    List<Types.NestedField> fields = struct.fields();
    Converter[] converters = new Converter[fields.size()];
    for (int i = 0; i < converters.length; i++) {
      converters[i] = ValueConverters.forType(fields.get(i).type());
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
        throw ValueConverters.BAD;
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
            throw ValueConverters.BAD;
          }
        } else {
          matched++;
          record.set(i, converters[i].convert(raw));
        }
      }
      if (matched != in.size()) {
        throw ValueConverters.BAD; // an unknown nested field
      }
      return record;
    };
  }
}
