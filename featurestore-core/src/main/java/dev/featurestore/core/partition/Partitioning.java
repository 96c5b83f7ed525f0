package dev.featurestore.core.partition;

import dev.featurestore.InvalidArgumentException;
import static java.util.Objects.requireNonNull;

import dev.featurestore.PartitionEvolution;
import dev.featurestore.core.base.TableHandle;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.types.Types;

/**
 * Entry point of partitioning: spec evolution and partition paths.
 *
 * <pre>{@code
 * Partitioning.evolve(handle).bucket("entity_id", 16).commit();
 * String path = Partitioning.partitionPath(handle, Map.of("event_time", "2026-01-01T10:00:00Z"));
 * }</pre>
 */
public final class Partitioning {
  private Partitioning() {}

  /** A pending change of the table's partition spec. */
  public static PartitionEvolution evolve(TableHandle handle) {
    return new PartitionChange(requireNonNull(handle, "handle is null"));
  }

  /** The path of the partition a row with these values lands in under the current spec. */
  public static String partitionPath(TableHandle handle, Map<String, ?> row) {
    InvalidArgumentException.requireNonNull(row, "compute partition path", "row");
    Table table = handle.table();
    PartitionSpec spec = table.spec();
    if (spec.isUnpartitioned()) {
      return "";
    }
    Schema schema = table.schema();
    GenericRecord record = GenericRecord.create(schema);
    for (Types.NestedField column : schema.columns()) {
      Object value = row.get(column.name());
      if (value != null) {
        record.setField(column.name(), Values.toJava(column.type(), value, column.name()));
      }
    }
    PartitionKey key = new PartitionKey(spec, schema);
    key.partition(new InternalRecordWrapper(schema.asStruct()).wrap(record));
    return spec.partitionToPath(key);
  }

  /** The path of partition values given in the current spec's field order. */
  public static String partitionPathOf(TableHandle handle, List<?> values) {
    InvalidArgumentException.requireNonNull(values, "compute partition path", "values");
    PartitionSpec spec = handle.table().spec();
    List<Types.NestedField> fields = spec.partitionType().fields();
    if (values.size() != fields.size()) {
      throw new InvalidArgumentException("Cannot compute partition path: expected " + fields.size()
          + " values for spec " + spec.fields() + ": " + values.size());
    }
    PartitionData data = new PartitionData(spec.partitionType());
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      data.set(i, values.get(i) == null ? null : Values.toInternal(field.type(), values.get(i), field.name()));
    }
    return spec.partitionToPath(data);
  }
}
