package dev.featurestore;


import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The rules a column name must follow, checked when a table is defined and when a column is added
 * or renamed, so every engine reading the table sees the column the writer meant.
 *
 * <ul>
 *   <li>Names in one struct (the table's top level, or the fields of one nested struct) must differ
 *       by more than case: most engines (DuckDB, Spark, Trino) fold case, so {@code feature} and
 *       {@code Feature} would read the same column.
 *   <li>A top-level name must not be one of Iceberg's reserved metadata column names ({@link
 *       #RESERVED}, compared case-insensitively): readers add those columns to the projection (the
 *       row position {@code _pos} as soon as a position delete exists), and a user column of the
 *       same name breaks the read.
 * </ul>
 */
public final class ColumnNames {
  /**
   * Iceberg 1.12's metadata column names ({@code org.apache.iceberg.MetadataColumns}) and the
   * columns of its position delete files, lower case.
   */
  public static final Set<String> RESERVED = Set.of(
      "_file", "_pos", "_deleted", "_spec_id", "_partition", "_row_id", "_last_updated_sequence_number",
      "_change_type", "_change_ordinal", "_commit_snapshot_id", "file_path", "pos");

  private ColumnNames() {}

  /** Whether {@code name} is a reserved metadata column name, ignoring case. */
  public static boolean isReserved(String name) {
    InvalidArgumentException.requireNonNull(name, "check column name", "name");
    return RESERVED.contains(name.toLowerCase(Locale.ROOT));
  }

  /**
   * Checks every name of a new table's schema.
   *
   * @param what the action, as in {@code "define table features.t"}
   * @throws InvalidArgumentException naming the first offending column
   */
  public static void checkSchema(Schema schema, String what) {
    InvalidArgumentException.requireNonNull(schema, "check schema", "schema");
    for (Types.NestedField column : schema.columns()) {
      InvalidArgumentException.check(!isReserved(column.name()),
          "Cannot %s: column name is reserved by Iceberg: %s", what, column.name());
    }
    checkStruct(schema.asStruct(), "", what);
  }

  /**
   * Checks a name a column is about to get (added, or renamed to) among its future siblings.
   *
   * @param siblings the struct the column is in (the schema's top level or its parent struct)
   * @param topLevel whether that struct is the schema's top level (reserved names apply there)
   * @param selfId the field id of the column being renamed (its own name may change case), or -1
   * @param what the action, as in {@code "add column"}
   * @throws InvalidArgumentException if the name is reserved
   * @throws ValidationException if a sibling's name differs from it only by case
   */
  public static void checkNewName(Types.StructType siblings, boolean topLevel, String name, int selfId, String what) {
    InvalidArgumentException.requireNonNull(siblings, "check column name", "siblings");
    InvalidArgumentException.requireNonNull(name, "check column name", "name");
    if (topLevel) {
      InvalidArgumentException.check(!isReserved(name), "Cannot %s: column name is reserved by Iceberg: %s", what, name);
    }
    String folded = name.toLowerCase(Locale.ROOT);
    for (Types.NestedField sibling : siblings.fields()) {
      if (sibling.fieldId() != selfId && sibling.name().toLowerCase(Locale.ROOT).equals(folded)) {
        throw new ValidationException(
            "Cannot " + what + ": column name differs only by case from column " + sibling.name() + ": " + name);
      }
    }
  }

  private static void checkStruct(Types.StructType struct, String prefix, String what) {
    Map<String, String> seen = new HashMap<>();
    for (Types.NestedField field : struct.fields()) {
      String other = seen.putIfAbsent(field.name().toLowerCase(Locale.ROOT), field.name());
      InvalidArgumentException.check(other == null,
          "Cannot %s: column name differs only by case from column %s%s: %s%s", what, prefix, other, prefix,
          field.name());
      checkNested(field.type(), prefix + field.name() + ".", what);
    }
  }

  private static void checkNested(Type type, String prefix, String what) {
    if (type.isStructType()) {
      checkStruct(type.asStructType(), prefix, what);
    } else if (type.isListType()) {
      checkNested(type.asListType().elementType(), prefix + "element.", what);
    } else if (type.isMapType()) {
      checkNested(type.asMapType().keyType(), prefix + "key.", what);
      checkNested(type.asMapType().valueType(), prefix + "value.", what);
    }
  }
}
