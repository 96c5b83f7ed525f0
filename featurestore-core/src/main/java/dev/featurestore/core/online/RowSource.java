package dev.featurestore.core.online;

import dev.featurestore.core.base.ScanPlanning;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads the view's columns from the table's data files as rows {@code {key, event micros,
 * feature values...}} (features in view order; a feature missing from the schema reads null).
 * Rows without a key or an event time are skipped: they can never be an entity's latest value.
 * Either a planned scan task with its deletes applied, or a data file as written (no deletes: to
 * learn which rows it held).
 */
final class RowSource {
  private final Table table;
  private final ViewLayout layout;
  private final Schema schema;
  private final Schema projection;

  RowSource(Table table, ViewLayout layout, Schema schema) {
    this.table = table;
    this.layout = layout;
    this.schema = schema;
    java.util.Set<Integer> ids = new java.util.LinkedHashSet<>();
    for (int id : layout.readIds()) {
      if (schema.findField(id) != null) {
        ids.add(id);
      }
    }
    this.projection = TypeUtil.select(schema, ids);
  }

  /** The rows of a planned task, deletes applied. */
  void readTask(FileScanTask task, Consumer<Object[]> rows) {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, projection);
    Schema required = deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> records = FormatModelRegistry
        .readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
        .project(required)
        .idToConstant(constants)
        .split(task.start(), task.length())
        .build();
    consume(deletes.filter(records), required, rows);
  }

  /** The rows of a data file as written, no deletes applied. */
  void readFile(DataFile file, Consumer<Object[]> rows) {
    InputFile input = table.io().newInputFile(file);
    CloseableIterable<Record> records = FormatModelRegistry.readBuilder(file.format(), Record.class, input)
        .project(projection)
        .idToConstant(constants(file))
        .build();
    consume(records, projection, rows);
  }

  private Map<Integer, Object> constants(ContentFile<?> file) {
    Map<Integer, Object> constants = new HashMap<>();
    PartitionSpec spec = table.specs().get(file.specId());
    StructLike partition = file.partition();
    if (spec == null || partition == null) {
      return constants;
    }
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      Types.NestedField source = schema.findField(field.sourceId());
      if (field.transform().isIdentity() && source != null) {
        constants.put(field.sourceId(),
            IdentityPartitionConverters.convertConstant(source.type(), partition.get(i, Object.class)));
      }
    }
    return constants;
  }

  private void consume(CloseableIterable<Record> records, Schema readSchema, Consumer<Object[]> rows) {
    List<Types.NestedField> columns = readSchema.columns();
    Map<Integer, Integer> positions = new HashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      positions.put(columns.get(i).fieldId(), i);
    }
    int keyAt = positions.get(layout.keyId());
    int timeAt = positions.get(layout.timeId());
    boolean zoned = ((Types.TimestampType) schema.findType(layout.timeId())).shouldAdjustToUTC();
    List<Integer> features = layout.featureIds();
    int[] featureAt = new int[features.size()];
    for (int i = 0; i < featureAt.length; i++) {
      featureAt[i] = positions.getOrDefault(features.get(i), -1);
    }
    try (records) {
      for (Record record : records) {
        Object key = record.get(keyAt);
        Object time = record.get(timeAt);
        if (key == null || time == null) {
          continue;
        }
        Object[] row = new Object[2 + featureAt.length];
        row[0] = SqlValues.storedKey(key);
        row[1] = zoned ? DateTimeUtil.microsFromTimestamptz((java.time.OffsetDateTime) time)
            : DateTimeUtil.microsFromTimestamp((java.time.LocalDateTime) time);
        for (int i = 0; i < featureAt.length; i++) {
          row[2 + i] = featureAt[i] < 0 ? null : record.get(featureAt[i]);
        }
        rows.accept(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tasks of {@code snapshotId}, oldest data first (data sequence number, then path). */
  static List<FileScanTask> plan(Table table, long snapshotId, org.apache.iceberg.expressions.Expression filter) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = ScanPlanning.newScan(table, snapshotId).filter(filter).planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    tasks.sort(java.util.Comparator.comparingLong((FileScanTask t) -> sequenceOf(t.file(), 0))
        .thenComparing(t -> t.file().location()).thenComparingLong(FileScanTask::start));
    return tasks;
  }

  static long sequenceOf(ContentFile<?> file, long fallback) {
    Long seq = file.dataSequenceNumber();
    return seq == null ? fallback : seq;
  }
}
