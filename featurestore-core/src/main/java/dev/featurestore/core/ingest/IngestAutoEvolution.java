package dev.featurestore.core.ingest;

import dev.featurestore.ColumnNames;
import dev.featurestore.CommitConflictException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.TableId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ingest's schema as auto evolution widens it: the table's schema at the start plus the columns
 * added so far, with the field ids Iceberg's {@code UpdateSchema} will assign, so files written
 * with the evolved schema match the committed one. Not thread-safe: one per ingest run.
 */
final class IngestAutoEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(IngestAutoEvolution.class);
  private static final Pattern INTEGRAL = Pattern.compile("[+-]?\\d{1,18}");
  private static final Pattern FRACTIONAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

  private final TableId id;
  private final Schema baseSchema;
  private final int baseLastColumnId;
  private final Map<String, Type> added = new LinkedHashMap<>();
  private final Set<String> nullOnlyColumns = new LinkedHashSet<>();
  private Schema schema;

  IngestAutoEvolution(TableId id, Table table) {
    this.id = id;
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    this.baseSchema = metadata.schema();
    this.baseLastColumnId = metadata.lastColumnId();
    this.schema = baseSchema;
  }

  /** The schema new files are written with: the base schema plus every column added so far. */
  Schema schema() {
    return schema;
  }

  /**
   * The unknown columns seen only with null values so far; the row mapper adds to it, a column
   * leaves it once a non-null value gives it a type.
   */
  Set<String> nullOnlyColumns() {
    return nullOnlyColumns;
  }

  /** The names of the columns added, in the order they were added. */
  List<String> addedColumns() {
    return List.copyOf(added.keySet());
  }

  boolean changed() {
    return !added.isEmpty();
  }

  /** Adds {@code name}, typed by its source's declaration or else by its first non-null value. */
  void addColumn(String name, Object value, long row, RowSource rowSource) {
    checkName(name);
    Type type = rowSource.declaredType(name).orElseGet(() -> inferType(value, rowSource.textValues(), row, name));
    added.put(name, type);
    nullOnlyColumns.remove(name);
    schema = evolvedSchema();
    LOG.debug("Ingest into {} adds column {} {} at row {}", id, name, type, row);
  }

  /**
   * The rules of a column added by hand hold for one added by an ingest: no name differing from
   * another only by case, no Iceberg metadata column name.
   */
  private void checkName(String name) {
    ColumnNames.checkNewName(schema.asStruct(), true, name, -1, "ingest into table " + id);
  }

  /** At the end of the input: columns that only ever had nulls are added as strings. */
  void addNullOnlyColumns() {
    for (String name : nullOnlyColumns) {
      if (schema.findField(name) == null) {
        checkName(name);
        added.put(name, Types.StringType.get());
      }
    }
    schema = evolvedSchema();
  }

  /**
   * Adds the columns to {@code update} (committed in the ingest's transaction), then checks that
   * the committed schema gave them the field ids the files were written with.
   *
   * @throws CommitConflictException if the schema changed concurrently
   */
  void commitTo(UpdateSchema update, Table transactionTable) {
    added.forEach(update::addColumn);
    update.commit();
    Schema committed = transactionTable.schema();
    for (String name : added.keySet()) {
      Types.NestedField written = schema.findField(name);
      if (!written.equals(committed.findField(name))) {
        throw new CommitConflictException("Cannot commit ingest to table " + id
            + ": the schema changed concurrently: column " + name + " would get field id "
            + committed.findField(name).fieldId() + ", files were written with " + written.fieldId());
      }
    }
  }

  /** The base schema plus the added columns, with the field ids Iceberg's UpdateSchema assigns. */
  private Schema evolvedSchema() {
    if (added.isEmpty()) {
      return baseSchema;
    }
    List<Types.NestedField> columns = new ArrayList<>(baseSchema.columns());
    int[] lastId = {baseLastColumnId};
    for (Map.Entry<String, Type> column : added.entrySet()) {
      int fieldId = ++lastId[0];
      Type type = TypeUtil.assignFreshIds(column.getValue(), () -> ++lastId[0]);
      columns.add(Types.NestedField.optional(fieldId, column.getKey(), type));
    }
    return new Schema(columns, baseSchema.identifierFieldIds());
  }

  /** The column type for a new column, from its first non-null value. */
  static Type inferType(Object value, boolean text, long row, String column) {
    if (text && value instanceof String) {
      String s = ((String) value).trim();
      if (INTEGRAL.matcher(s).matches()) {
        return Types.LongType.get();
      }
      if (FRACTIONAL.matcher(s).matches()) {
        return Types.DoubleType.get();
      }
      if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
        return Types.BooleanType.get();
      }
      return Types.StringType.get();
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
        || value instanceof java.math.BigInteger) {
      return Types.LongType.get();
    }
    if (value instanceof Double || value instanceof Float || value instanceof java.math.BigDecimal) {
      return Types.DoubleType.get();
    }
    if (value instanceof Boolean) {
      return Types.BooleanType.get();
    }
    if (value instanceof CharSequence || value instanceof Character || value instanceof Enum<?>) {
      return Types.StringType.get();
    }
    if (value instanceof java.time.LocalDate) {
      return Types.DateType.get();
    }
    if (value instanceof java.time.LocalTime) {
      return Types.TimeType.get();
    }
    if (value instanceof java.time.LocalDateTime) {
      return Types.TimestampType.withoutZone();
    }
    if (value instanceof Instant || value instanceof java.time.OffsetDateTime
        || value instanceof java.time.ZonedDateTime || value instanceof java.util.Date) {
      return Types.TimestampType.withZone();
    }
    if (value instanceof java.util.UUID) {
      return Types.UUIDType.get();
    }
    if (value instanceof byte[] || value instanceof java.nio.ByteBuffer) {
      return Types.BinaryType.get();
    }
    throw new InvalidDataException("Cannot ingest row " + row + ": cannot infer a type for new column " + column
        + ": " + RowMapper.render(value), row, column);
  }
}
