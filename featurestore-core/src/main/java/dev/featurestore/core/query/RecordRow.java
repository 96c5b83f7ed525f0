package dev.featurestore.core.query;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.Row;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A row backed by an Iceberg record. The record may carry extra trailing columns (filter or
 * delete columns that were read but not selected); only the projected columns are visible.
 */
final class RecordRow implements Row {
  private final Record record;
  private final Columns columns;

  RecordRow(Record record, Columns columns) {
    this.record = record;
    this.columns = columns;
  }

  @Override
  public Object get(int position) {
    Objects.checkIndex(position, columns.names.size());
    return record.get(position);
  }

  @Override
  public Object get(String column) {
    Integer position = columns.positions.get(column);
    if (position == null) {
      throw new InvalidArgumentException("Cannot get column: unknown column: " + column);
    }
    return record.get(position);
  }

  @Override
  public int size() {
    return columns.names.size();
  }

  @Override
  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < columns.names.size(); i++) {
      map.put(columns.names.get(i), record.get(i));
    }
    return map;
  }

  /** The row as a record of exactly the projected schema. */
  Record toRecord() {
    if (record.struct().fields().size() == columns.names.size()) {
      return record;
    }
    GenericRecord copy = GenericRecord.create(columns.schema);
    for (int i = 0; i < columns.names.size(); i++) {
      copy.set(i, record.get(i));
    }
    return copy;
  }

  @Override
  public String toString() {
    return "Row" + toMap();
  }

  /** Column names and positions of a projected schema, shared by all rows of a result. */
  static final class Columns {
    private final Schema schema;
    private final List<String> names;
    private final Map<String, Integer> positions = new LinkedHashMap<>();

    Columns(Schema schema) {
      this.schema = schema;
      this.names = schema.columns().stream().map(Types.NestedField::name).toList();
      for (int i = 0; i < names.size(); i++) {
        positions.put(names.get(i), i);
      }
    }
  }
}
