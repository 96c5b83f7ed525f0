package dev.featurestore.core.inspect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The {@code schemas} metadata table (Iceberg has none): every schema version of the table, one row
 * per field, nested fields included, with the full dotted name Iceberg gives them
 * ({@code s.a}, {@code tags.element}, {@code attrs.key}).
 */
final class SchemaRows {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "schema_id", Types.IntegerType.get()),
      Types.NestedField.required(2, "is_current", Types.BooleanType.get()),
      Types.NestedField.required(3, "field_id", Types.IntegerType.get()),
      Types.NestedField.optional(4, "parent_field_id", Types.IntegerType.get()),
      Types.NestedField.required(5, "name", Types.StringType.get()),
      Types.NestedField.required(6, "type", Types.StringType.get()),
      Types.NestedField.required(7, "required", Types.BooleanType.get()),
      Types.NestedField.optional(8, "doc", Types.StringType.get()));

  private SchemaRows() {}

  static List<Record> of(Table table) {
    int current = table.schema().schemaId();
    List<Schema> schemas = new ArrayList<>(table.schemas().values());
    schemas.sort(Comparator.comparingInt(Schema::schemaId));
    List<Record> rows = new ArrayList<>();
    for (Schema schema : schemas) {
      fields(schema.schemaId(), schema.schemaId() == current, schema.asStruct().fields(), null, "", rows);
    }
    return rows;
  }

  private static void fields(int schemaId, boolean current, List<Types.NestedField> fields, Integer parent, String prefix,
      List<Record> rows) {
    for (Types.NestedField field : fields) {
      String name = prefix + field.name();
      Record row = GenericRecord.create(SCHEMA);
      row.set(0, schemaId);
      row.set(1, current);
      row.set(2, field.fieldId());
      row.set(3, parent);
      row.set(4, name);
      row.set(5, typeName(field.type()));
      row.set(6, field.isRequired());
      row.set(7, field.doc());
      rows.add(row);
      Type type = field.type();
      if (type.isNestedType()) {
        fields(schemaId, current, type.asNestedType().fields(), field.fieldId(), name + ".", rows);
      }
    }
  }

  /** A primitive type as Iceberg writes it ({@code long}, {@code decimal(9, 2)}); nested types by kind. */
  private static String typeName(Type type) {
    return type.isPrimitiveType() ? type.toString() : type.typeId().name().toLowerCase(java.util.Locale.ROOT);
  }
}
