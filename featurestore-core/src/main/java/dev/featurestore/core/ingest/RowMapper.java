package dev.featurestore.core.ingest;

import dev.featurestore.core.base.ValueConverters;

import dev.featurestore.InvalidDataException;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/**
 * Maps raw rows onto {@link GenericRecord}s of one schema: resolves input names to columns (once
 * per layout for fixed-layout sources), converts each value with a converter compiled once per
 * column, and checks required columns. Built once per schema; rebuilt when auto evolution adds a
 * column.
 */
final class RowMapper {
  static final int UNKNOWN = -1;

  private final Schema schema;
  private final Types.StructType struct;
  private final String[] columnNames;
  private final String[] typeNames;
  private final ValueConverters.Converter[] converters;
  private final int[] requiredPositions;
  /** Per column its write-default in generic form (v3), or null: written when a row leaves the column out. */
  private final Object[] writeDefaults;
  private final boolean[] given;
  private final Map<String, Integer> positions = new HashMap<>();
  private final boolean snakeCaseNames;
  private final Set<String> ignoredNullColumns;
  private final Map<Object, int[]> layouts = new IdentityHashMap<>();

  /**
   * @param ignoredNullColumns unknown columns whose null values are accepted (auto evolution:
   *     the column is added later, once its type is known)
   */
  RowMapper(Schema schema, boolean snakeCaseNames, Set<String> ignoredNullColumns) {
    this.schema = schema;
    this.struct = schema.asStruct();
    this.snakeCaseNames = snakeCaseNames;
    this.ignoredNullColumns = ignoredNullColumns;
    List<Types.NestedField> fields = struct.fields();
    int n = fields.size();
    columnNames = new String[n];
    typeNames = new String[n];
    converters = new ValueConverters.Converter[n];
    int required = 0;
    writeDefaults = new Object[n];
    given = new boolean[n];
    for (int i = 0; i < n; i++) {
      Types.NestedField field = fields.get(i);
      if (field.writeDefault() != null) {
        writeDefaults[i] = org.apache.iceberg.data.GenericDataUtil.internalToGeneric(field.type(), field.writeDefault());
      }
      columnNames[i] = field.name();
      typeNames[i] = ValueConverters.typeName(field.type());
      converters[i] = ValueConverters.forType(field.type());
      positions.put(field.name(), i);
      if (field.isRequired()) {
        required++;
      }
    }
    requiredPositions = new int[required];
    for (int i = 0, r = 0; i < n; i++) {
      if (fields.get(i).isRequired()) {
        requiredPositions[r++] = i;
      }
    }
  }

  Schema schema() {
    return schema;
  }

  GenericRecord newRecord() {
    return GenericRecord.create(struct);
  }

  /** The column position of an input name, or {@link #UNKNOWN}. */
  int position(String name) {
    Integer pos = positions.get(name);
    if (pos == null && snakeCaseNames) {
      pos = positions.get(snakeCase(name));
    }
    return pos == null ? UNKNOWN : pos;
  }

  /**
   * Fills {@code record} (cleared first) from {@code row}.
   *
   * @return null when the row mapped, or the name of an unknown column that has a non-null value
   *     (the caller decides: fail, or evolve the schema and map the row again)
   * @throws InvalidDataException if a value does not convert or a required column is missing
   */
  String map(RawRow row, GenericRecord record, boolean evolving) {
    int[] resolved = null;
    if (row.layout != null) {
      resolved = layouts.get(row.layout);
      if (resolved == null) {
        resolved = new int[row.size];
        for (int i = 0; i < row.size; i++) {
          resolved[i] = position(row.names[i]);
        }
        layouts.put(row.layout, resolved);
      }
    }
    for (int i = 0; i < columnNames.length; i++) {
      record.set(i, null);
      given[i] = false;
    }
    String[] names = row.names;
    Object[] values = row.values;
    for (int i = 0; i < row.size; i++) {
      int pos = resolved != null ? resolved[i] : position(names[i]);
      Object value = values[i];
      if (pos == UNKNOWN) {
        if (value == null && evolving) {
          ignoredNullColumns.add(names[i]);
          continue;
        }
        if (evolving) {
          return names[i];
        }
        throw new InvalidDataException(
            "Cannot ingest row " + row.number + ": unknown column: " + names[i], row.number, names[i]);
      }
      given[pos] = true;
      if (value != null) {
        try {
          record.set(pos, converters[pos].convert(value));
        } catch (ValueConverters.BadValue e) {
          throw new InvalidDataException(
              "Cannot ingest row " + row.number + ": column " + columnNames[pos] + " expects " + typeNames[pos]
                  + ": " + e.reason().map(reason -> reason + ": ").orElse("") + render(value),
              row.number, columnNames[pos]);
        }
      }
    }
    for (int i = 0; i < writeDefaults.length; i++) {
      if (writeDefaults[i] != null && !given[i]) {
        record.set(i, writeDefaults[i]);
      }
    }
    for (int pos : requiredPositions) {
      if (record.get(pos) == null) {
        throw new InvalidDataException(
            "Cannot ingest row " + row.number + ": column " + columnNames[pos] + " is required: null",
            row.number, columnNames[pos]);
      }
    }
    return null;
  }

  /** A value as error messages show it: strings quoted, long values cut at 100 characters. */
  static String render(Object value) {
    if (value instanceof byte[]) {
      return "byte[" + ((byte[]) value).length + "]";
    }
    String text = String.valueOf(value);
    if (text.length() > 100) {
      text = text.substring(0, 100) + "...";
    }
    text = escapeSurrogates(text);
    return value instanceof CharSequence || value instanceof Character ? "\"" + text + "\"" : text;
  }

  /** Surrogates written as {@code \\uXXXX}, so a message about a malformed string is itself well formed. */
  private static String escapeSurrogates(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        if (out == null) {
          out = new StringBuilder(text.length() + 8).append(text, 0, i);
        }
        out.append(String.format("\\u%04X", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  /** {@code entityId} -> {@code entity_id}. */
  static String snakeCase(String name) {
    StringBuilder out = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c)) {
        if (i > 0) {
          out.append('_');
        }
        out.append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
