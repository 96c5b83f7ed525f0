package dev.featurestore.core.base;

import dev.featurestore.ValidationException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The rules every column name follows, wherever a column is made (create, add, rename, an ingest
 * that adds columns):
 * <ul>
 *   <li>no two columns of one struct differ only by case ({@code Feature} and {@code feature}):
 *       SQL engines fold case, and would read the wrong one;
 *   <li>no top-level column takes a name Iceberg reserves for metadata columns ({@code _pos},
 *       {@code _file}, {@code _deleted}, {@code _spec_id}, {@code _partition}, {@code _row_id},
 *       {@code _last_updated_sequence_number}, ...) or for position delete files ({@code file_path},
 *       {@code pos}), in any case: reads that apply deletes project those names.
 * </ul>
 */
public final class ColumnNames {
  private static final Set<String> DELETE_FILE_COLUMNS = Set.of(
      MetadataColumns.DELETE_FILE_PATH.name(), MetadataColumns.DELETE_FILE_POS.name());

  private ColumnNames() {}

  /** True when Iceberg reserves {@code name} (in any case) for a metadata or delete-file column. */
  public static boolean reserved(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return MetadataColumns.isMetadataColumn(lower) || DELETE_FILE_COLUMNS.contains(lower);
  }

  /**
   * Checks every struct of {@code schema}.
   *
   * @param what the operation for the message, as in "create table a.b"
   * @throws ValidationException naming the first offending column
   */
  public static void check(Schema schema, String what) {
    for (Types.NestedField column : schema.columns()) {
      if (reserved(column.name())) {
        throw new ValidationException(
            "Cannot " + what + ": column name is reserved by Iceberg for metadata columns: " + column.name());
      }
    }
    checkStruct(schema.asStruct(), "", what);
  }

  private static void checkStruct(Types.StructType struct, String prefix, String what) {
    Map<String, String> seen = new HashMap<>();
    for (Types.NestedField field : struct.fields()) {
      String other = seen.put(field.name().toLowerCase(Locale.ROOT), field.name());
      if (other != null) {
        throw new ValidationException("Cannot " + what + ": column names differ only by case: "
            + prefix + other + ", " + prefix + field.name());
      }
      nested(field.type(), prefix + field.name() + ".", what);
    }
  }

  private static void nested(Type type, String prefix, String what) {
    if (type.isStructType()) {
      checkStruct(type.asStructType(), prefix, what);
    } else if (type.isListType()) {
      nested(type.asListType().elementType(), prefix, what);
    } else if (type.isMapType()) {
      nested(type.asMapType().keyType(), prefix, what);
      nested(type.asMapType().valueType(), prefix, what);
    }
  }

  /**
   * Checks a name given to a column of {@code siblings} (a new column, or a renamed one: its own
   * current field id is not a collision).
   *
   * @param topLevel whether the column is a top-level one (reserved names apply there)
   * @param fieldId the renamed column's id, or -1 for a new column
   * @throws ValidationException when the name is reserved or differs from a sibling only by case
   */
  public static void checkNew(List<Types.NestedField> siblings, boolean topLevel, String name, int fieldId, String what) {
    if (topLevel && reserved(name)) {
      throw new ValidationException("Cannot " + what + ": column name is reserved by Iceberg for metadata columns: " + name);
    }
    for (Types.NestedField sibling : siblings) {
      if (sibling.fieldId() != fieldId && !sibling.name().equals(name) && sibling.name().equalsIgnoreCase(name)) {
        throw new ValidationException("Cannot " + what + ": column names differ only by case: " + sibling.name() + ", " + name);
      }
    }
  }
}
