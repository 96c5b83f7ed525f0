package dev.featurestore.core.query;

import dev.featurestore.FeatureTable;
import dev.featurestore.Row;
import dev.featurestore.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Test helper for diffs: changes written through Iceberg's own API (deletion vectors, copy-on-write
 * overwrites), live rows of one data file, and the multiset difference of two full reads.
 */
public final class DiffTables {
  private static long taskId = 1000;

  private DiffTables() {}

  /** Every live data file of the current snapshot with its delete files. */
  public static List<FileScanTask> liveFiles(FeatureTable featureTable) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    List<FileScanTask> tasks = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return tasks;
    }
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  /** Deletes rows of a data file by position with a v3 deletion vector (the file must have none yet). */
  public static void deletionVector(FeatureTable featureTable, DataFile dataFile, long... positions) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 9, ++taskId).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(outputs, path -> null);
    try (writer) {
      for (long position : positions) {
        writer.delete(dataFile.location(), position, table.specs().get(dataFile.specId()), dataFile.partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RowDelta delta = table.newRowDelta();
    writer.result().deleteFiles().forEach(delta::addDeletes);
    delta.commit();
    featureTable.refresh();
  }

  /** The rows of one data file as the table holds them now (its deletes applied), in the table's schema. */
  public static List<Record> liveRows(FeatureTable featureTable, FileScanTask task) {
    Table table = featureTable.unwrap(Table.class);
    Schema schema = table.schema();
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = deletes.filter(FormatModelRegistry
        .readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
        .project(deletes.requiredSchema())
        .build())) {
      for (Record record : records) {
        GenericRecord copy = GenericRecord.create(schema);
        for (int i = 0; i < schema.columns().size(); i++) {
          copy.set(i, record.get(i));
        }
        rows.add(copy);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * Replaces one data file by a new one holding {@code rows} (a copy-on-write overwrite), unpartitioned;
   * with no rows, deletes the file (and returns null).
   */
  public static DataFile overwrite(FeatureTable featureTable, DataFile replaced, List<Record> rows) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    if (rows.isEmpty()) { // a whole-file delete
      table.newDelete().deleteFile(replaced).commit();
      featureTable.refresh();
      return null;
    }
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 8, ++taskId).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(outputs.newOutputFile(), table.spec(), null);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile added = writer.toDataFile();
    table.newOverwrite().deleteFile(replaced).addFile(added).commit();
    featureTable.refresh();
    return added;
  }

  /** Every row of a read, as maps, counted: a multiset. */
  public static Map<Map<String, Object>, Integer> multiset(Rows rows) {
    Map<Map<String, Object>, Integer> counts = new HashMap<>();
    try (rows) {
      for (Row row : rows) {
        counts.merge(row.toMap(), 1, Integer::sum);
      }
    }
    return counts;
  }

  /**
   * Every row of {@code snapshotId} as Iceberg's own generic reader reads it through
   * {@code projection} (field ids: renamed columns keep their data, columns added later read null,
   * widened ones widened), deletes applied, as maps counted: a multiset.
   */
  public static Map<Map<String, Object>, Integer> icebergRead(FeatureTable featureTable, long snapshotId, Schema projection) {
    Table table = featureTable.unwrap(Table.class);
    Map<Map<String, Object>, Integer> counts = new HashMap<>();
    try (CloseableIterable<Record> records = org.apache.iceberg.data.IcebergGenerics.read(table)
        .useSnapshot(snapshotId).project(projection).build()) {
      for (Record record : records) {
        Map<String, Object> row = new java.util.LinkedHashMap<>();
        for (int i = 0; i < projection.columns().size(); i++) {
          row.put(projection.columns().get(i).name(), record.get(i));
        }
        counts.merge(row, 1, Integer::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counts;
  }

  /** {@code a} minus {@code b}, as multisets. */
  public static Map<Map<String, Object>, Integer> minus(Map<Map<String, Object>, Integer> a,
      Map<Map<String, Object>, Integer> b) {
    Map<Map<String, Object>, Integer> out = new HashMap<>();
    a.forEach((row, n) -> {
      int left = n - b.getOrDefault(row, 0);
      if (left > 0) {
        out.put(row, left);
      }
    });
    return out;
  }

  /** The number of rows of a multiset. */
  public static long size(Map<Map<String, Object>, Integer> rows) {
    return rows.values().stream().mapToLong(Integer::longValue).sum();
  }
}
