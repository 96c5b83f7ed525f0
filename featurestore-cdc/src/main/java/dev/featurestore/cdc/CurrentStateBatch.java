package dev.featurestore.cdc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One batch for a current-state table, whatever its layout: reduced to the last change of each
 * document, every after image typed against the table's columns, and the schema changes the
 * batch needs opened as a transaction (the layout's commit goes into the same transaction).
 *
 * <p>Typed projection: every top-level scalar field of an after image becomes a column (strings,
 * booleans, int, long, double), besides the whole document as JSON in {@code _doc}. A new field
 * adds a nullable column; an int field that gets a long value (or a float one a double) is
 * promoted; any other type change sends the entry to the dead letters, with the reason, and the
 * document keeps its previous state. Nested maps and lists live in {@code _doc} only. Field names
 * that clash with the system columns ({@code collection}, {@code doc_id}, names starting with
 * {@code _}) are not projected either.
 */
final class CurrentStateBatch {
  private static final int FIXED_COLUMNS = CdcTables.currentStateSchema().columns().size();

  /** The last change per document key ({@link #key}), in first-seen order. */
  final Map<String, Logged> finals = new LinkedHashMap<>();
  final List<DeadLetter> dead = new ArrayList<>();
  /** The schema-change transaction, or null when the batch needs none. */
  final Transaction txn;
  /** The table to write through: the transaction's when there is one. */
  final Table target;
  final Schema schema;
  private final Map<String, Map<String, Object>> images = new HashMap<>();

  private CurrentStateBatch(Table table, List<Logged> entries, boolean evolveSchema, int maxTypedColumns) {
    Map<String, Type> columns = new LinkedHashMap<>();
    table.schema().columns().forEach(c -> columns.put(c.name(), c.type()));
    Map<String, Type> added = new LinkedHashMap<>();
    Map<String, Type> promoted = new LinkedHashMap<>();
    for (Logged logged : entries) {
      CdcEntry e = logged.entry;
      if (e.operation() == CdcOperation.DELETE) {
        finals.put(key(e), logged);
        images.remove(key(e));
        continue;
      }
      Map<String, Object> after = Json.read(logged.afterJson);
      Map<String, Type> entryAdds = new LinkedHashMap<>();
      Map<String, Type> entryPromotions = new LinkedHashMap<>();
      String reason = plan(after, columns, entryAdds, entryPromotions, evolveSchema, maxTypedColumns);
      if (reason != null) {
        dead.add(new DeadLetter(logged.withImages(), reason));
        continue;
      }
      columns.putAll(entryAdds);
      columns.putAll(entryPromotions);
      added.putAll(entryAdds);
      entryPromotions.forEach((n, t) -> {
        if (!added.containsKey(n)) {
          promoted.put(n, t);
        } else {
          added.put(n, t);
        }
      });
      finals.put(key(e), logged);
      images.put(key(e), after);
    }
    if (added.isEmpty() && promoted.isEmpty()) {
      this.txn = null;
      this.target = table;
    } else {
      this.txn = table.newTransaction();
      UpdateSchema update = txn.updateSchema();
      added.forEach(update::addColumn);
      promoted.forEach((n, t) -> update.updateColumn(n, t.asPrimitiveType()));
      update.commit();
      this.target = txn.table();
    }
    this.schema = target.schema();
  }

  /** Reduces and types {@code entries} against {@code table}'s current schema. */
  static CurrentStateBatch of(Table table, List<Logged> entries, boolean evolveSchema, int maxTypedColumns) {
    return new CurrentStateBatch(table, entries, evolveSchema, maxTypedColumns);
  }

  static String key(CdcEntry e) {
    return key(e.collection(), e.docId());
  }

  static String key(Object collection, Object docId) {
    return collection + "\u0000" + docId;
  }

  /** The new row of a document's last change (an insert or update). */
  Record row(Logged logged, String shard, long commitMillis) {
    GenericRecord row = GenericRecord.create(schema);
    row.setField(CdcTables.COLLECTION, logged.entry.collection());
    row.setField(CdcTables.DOC_ID, logged.entry.docId());
    row.setField(CdcTables.SEQ, logged.seq());
    row.setField(CdcTables.SHARD, shard);
    row.setField(CdcTables.UPDATED_AT, OffsetDateTime.ofInstant(Instant.ofEpochMilli(commitMillis), ZoneOffset.UTC));
    row.setField(CdcTables.DOC, logged.afterJson);
    for (Map.Entry<String, Object> field : images.get(key(logged.entry)).entrySet()) {
      Types.NestedField column = projected(field.getKey(), field.getValue()) ? schema.findField(field.getKey()) : null;
      if (column != null) {
        row.setField(field.getKey(), convert(field.getValue(), column.type()));
      }
    }
    return row;
  }

  static boolean projected(String field, Object value) {
    return value != null && !(value instanceof Map) && !(value instanceof List)
        && !field.startsWith("_") && !field.equals(CdcTables.COLLECTION) && !field.equals(CdcTables.DOC_ID)
        && !field.isEmpty();
  }

  /** Plans the columns one after image needs; returns the reason it cannot be taken, or null. */
  private static String plan(Map<String, Object> after, Map<String, Type> columns, Map<String, Type> adds,
      Map<String, Type> promotions, boolean evolveSchema, int maxTypedColumns) {
    for (Map.Entry<String, Object> field : after.entrySet()) {
      String fieldName = field.getKey();
      Object value = field.getValue();
      if (!projected(fieldName, value)) {
        continue;
      }
      Type valueType = infer(value);
      if (valueType == null) {
        return "Cannot apply CDC entry to current state: field " + fieldName + " has a number out of range: " + value;
      }
      Type column = adds.containsKey(fieldName) ? adds.get(fieldName) : columns.get(fieldName);
      if (column == null) {
        if (!evolveSchema) {
          return "Cannot apply CDC entry to current state: unknown field and schema evolution is off: " + fieldName;
        }
        if (columns.size() + adds.size() - FIXED_COLUMNS >= maxTypedColumns) {
          continue; // beyond the cap the field stays in _doc only
        }
        adds.put(fieldName, valueType);
        continue;
      }
      if (column.equals(valueType) || fitsWithoutChange(column, value)) {
        continue;
      }
      Type widened = widening(column, valueType);
      if (widened != null && evolveSchema) {
        promotions.put(fieldName, widened);
        continue;
      }
      return "Cannot apply CDC entry to current state: field " + fieldName + " expects " + column + ", got "
          + valueType + ": " + quoted(value);
    }
    return null;
  }

  private static String quoted(Object value) {
    String text = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return text.length() > 100 ? text.substring(0, 100) + "..." : text;
  }

  /** The column type of a JSON value; null for an integer beyond long. */
  static Type infer(Object value) {
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return Types.IntegerType.get();
    }
    if (value instanceof Long l) {
      return l == l.intValue() ? Types.IntegerType.get() : Types.LongType.get();
    }
    if (value instanceof java.math.BigInteger big) {
      return big.bitLength() < 64 ? Types.LongType.get() : null;
    }
    if (value instanceof Number) {
      return Types.DoubleType.get();
    }
    if (value instanceof Boolean) {
      return Types.BooleanType.get();
    }
    return Types.StringType.get();
  }

  /** A value that converts exactly to the column type without a schema change. */
  private static boolean fitsWithoutChange(Type column, Object value) {
    switch (column.typeId()) {
      case LONG:
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
      case DOUBLE:
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
          return true;
        }
        return value instanceof Long l && Math.abs(l) <= (1L << 53);
      default:
        return false;
    }
  }

  /** The promoted column type when Iceberg can widen {@code column} to hold {@code value}; else null. */
  private static Type widening(Type column, Type value) {
    if (column.typeId() == Type.TypeID.INTEGER && value.typeId() == Type.TypeID.LONG) {
      return Types.LongType.get();
    }
    if (column.typeId() == Type.TypeID.FLOAT && value.typeId() == Type.TypeID.DOUBLE) {
      return Types.DoubleType.get();
    }
    return null;
  }

  private static Object convert(Object value, Type type) {
    return switch (type.typeId()) {
      case INTEGER -> ((Number) value).intValue();
      case LONG -> ((Number) value).longValue();
      case DOUBLE -> ((Number) value).doubleValue();
      case FLOAT -> ((Number) value).floatValue();
      default -> value;
    };
  }
}
