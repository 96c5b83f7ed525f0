package dev.featurestore.core.query;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Test helper: writes data straight through Iceberg (ingest is built elsewhere), one data file per
 * partition per append.
 */
public final class TestTables {
  private static long taskId = 0;

  private TestTables() {}

  public static FeatureTable createEvents(FeatureStore store, boolean partitionedByDay) {
    TableDefinition.Builder def = TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema());
    if (partitionedByDay) {
      def.partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build());
    }
    return store.createTable(def.build());
  }

  /** A record of the table's current schema from column name/value pairs. */
  public static Record record(FeatureTable table, Object... nameValues) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Schema schema = iceberg.schema();
    GenericRecord record = GenericRecord.create(schema);
    for (int i = 0; i < nameValues.length; i += 2) {
      record.setField((String) nameValues[i], nameValues[i + 1]);
    }
    return record;
  }

  public static Record event(FeatureTable table, long entityId, String time, Double a, Double b) {
    return record(table, "entity_id", entityId, "event_time", OffsetDateTime.parse(time), "feature_a", a,
        "feature_b", b);
  }

  /** Appends the records in one commit and returns the data files written (one per partition). */
  public static List<DataFile> append(FeatureTable featureTable, List<Record> records) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    Map<StructLike, List<Record>> byPartition = partition(table, records);
    AppendFiles append = table.newAppend();
    List<DataFile> files = new ArrayList<>();
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build();
    for (Map.Entry<StructLike, List<Record>> entry : byPartition.entrySet()) {
      StructLike partition = table.spec().isUnpartitioned() ? null : entry.getKey();
      DataWriter<Record> writer = writers.newDataWriter(
          partition == null ? outputs.newOutputFile() : outputs.newOutputFile(table.spec(), partition),
          table.spec(), partition);
      try (writer) {
        entry.getValue().forEach(writer::write);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      DataFile file = writer.toDataFile();
      files.add(file);
      append.appendFile(file);
    }
    append.commit();
    featureTable.refresh();
    return files;
  }

  public static long currentSnapshotId(FeatureTable featureTable) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** Deletes rows by position in one data file (a v2 positional delete file, file-scoped). */
  public static void positionDelete(FeatureTable featureTable, DataFile dataFile, long... positions) {
    List<Long> list = new ArrayList<>();
    for (long position : positions) {
      list.add(position);
    }
    positionDeletes(featureTable, Map.of(dataFile, list));
  }

  /**
   * Deletes rows by position in one v2 positional delete file; with more than one data file (of
   * one partition) the file is partition-scoped, as other engines write them.
   */
  public static DeleteFile positionDeletes(FeatureTable featureTable, Map<DataFile, List<Long>> positions) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 2, ++taskId).format(FileFormat.PARQUET).build();
    DataFile first = positions.keySet().iterator().next();
    StructLike partition = table.spec().isUnpartitioned() ? null : first.partition();
    PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(
        partition == null ? outputs.newOutputFile() : outputs.newOutputFile(table.spec(), partition),
        table.spec(), partition);
    // the spec wants rows ordered by file path, then position
    Map<String, List<Long>> byLocation = new TreeMap<>();
    positions.forEach((file, list) -> byLocation.put(file.location(), list.stream().sorted().toList()));
    try (writer) {
      for (Map.Entry<String, List<Long>> entry : byLocation.entrySet()) {
        for (long position : entry.getValue()) {
          PositionDelete<Record> delete = PositionDelete.create();
          writer.write(delete.set(entry.getKey(), position));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DeleteFile deleteFile = writer.toDeleteFile();
    commitDeletes(featureTable, table, deleteFile);
    return deleteFile;
  }

  /** Deletes rows whose {@code column} equals one of the values (a v2 equality delete file). */
  public static void equalityDelete(FeatureTable featureTable, String column, Object... values) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    Schema deleteSchema = table.schema().select(column);
    int fieldId = table.schema().findField(column).fieldId();
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET)
        .equalityFieldIds(new int[] {fieldId})
        .equalityDeleteRowSchema(deleteSchema)
        .build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 3, ++taskId).format(FileFormat.PARQUET).build();
    if (!table.spec().isUnpartitioned()) {
      throw new UnsupportedOperationException("equality deletes in this helper are for unpartitioned tables");
    }
    EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(outputs.newOutputFile(), table.spec(), null);
    try (writer) {
      for (Object value : values) {
        GenericRecord delete = GenericRecord.create(deleteSchema);
        delete.setField(column, value);
        writer.write(delete);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    commitDeletes(featureTable, table, writer.toDeleteFile());
  }

  private static void commitDeletes(FeatureTable featureTable, Table table, DeleteFile deleteFile) {
    RowDelta delta = table.newRowDelta().addDeletes(deleteFile);
    delta.commit();
    featureTable.refresh();
  }

  private static Map<StructLike, List<Record>> partition(Table table, List<Record> records) {
    Map<StructLike, List<Record>> byPartition = new LinkedHashMap<>();
    if (table.spec().isUnpartitioned()) {
      byPartition.put(new PartitionKey(table.spec(), table.schema()), new ArrayList<>(records));
      return byPartition;
    }
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record record : records) {
      key.partition(wrapper.wrap(record));
      byPartition.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(record);
    }
    return byPartition;
  }

  /**
   * Waits until the wall clock (which stamps Iceberg snapshots) is at least 2 ms past the
   * millisecond of the call: a commit after it is stamped at least 2 ms after every commit before
   * it, so a time taken between them, or 1 ms after the earlier one, selects the earlier snapshot.
   */
  public static void tick() {
    long until = System.currentTimeMillis() + 2;
    while (System.currentTimeMillis() < until) {
      Thread.onSpinWait(); // at most 2 ms
    }
  }
}
