package dev.featurestore.cdc;

import dev.featurestore.core.base.RecordFileWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * A CDC batch's Parquet data files, written with core's {@link RecordFileWriter}; compression is
 * the pipeline's, passed as a writer property. Not thread-safe; one sink per batch.
 */
final class DataFileSink {
  private static final AtomicLong TASKS = new AtomicLong();

  private final Table table;
  private final RecordFileWriter writer;
  private final List<DataFile> files = new ArrayList<>();

  DataFileSink(Table table, Schema schema, String compression) {
    this(table, schema, Map.of(TableProperties.PARQUET_COMPRESSION, compression));
  }

  /** @param writerProperties writer properties on top of the table's (compression, encodings) */
  DataFileSink(Table table, Schema schema, Map<String, String> writerProperties) {
    this.table = table;
    FileFormat format = FileFormat.PARQUET;
    // the task id keeps file names unique across batches and shards of this JVM; the operation
    // id (a random UUID per factory) across processes
    OutputFileFactory factory = OutputFileFactory.builderFor(table, 0, TASKS.incrementAndGet())
        .format(format)
        .build();
    this.writer = new RecordFileWriter(table, schema, format, writerProperties, factory, table.io());
  }

  void write(Record record) {
    writer.write(record);
  }

  /** Closes the open files and returns every data file written. */
  List<DataFile> finish() {
    files.addAll(writer.finish());
    return files;
  }

  /** Closes quietly (after a failure) and deletes every file this sink wrote. */
  void abort() {
    files.addAll(writer.abort());
    deleteFiles(table, files);
  }

  static void deleteFiles(Table table, List<DataFile> files) {
    for (DataFile file : files) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        // an orphan at worst: invisible to readers, removed by orphan-file cleanup
      }
    }
  }
}
