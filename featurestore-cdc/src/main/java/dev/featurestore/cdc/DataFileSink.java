package dev.featurestore.cdc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes records into Parquet data files of a table's current spec with Iceberg's public generic
 * writer: a rolling writer for unpartitioned tables, a fanout writer otherwise. Compression is the
 * pipeline's, passed as a writer property. Not thread-safe; one sink per batch.
 */
final class DataFileSink {
  private static final AtomicLong TASKS = new AtomicLong();

  private final Table table;
  private final PartitionSpec spec;
  private final RollingDataWriter<Record> rolling;
  private final FanoutDataWriter<Record> fanout;
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  private final List<DataFile> files = new ArrayList<>();
  private boolean closed;

  DataFileSink(Table table, Schema schema, String compression) {
    this.table = table;
    this.spec = table.spec();
    FileFormat format = FileFormat.PARQUET;
    long targetSize = PropertyUtil.propertyAsLong(
        table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(format)
        .writerProperties(Map.of(TableProperties.PARQUET_COMPRESSION, compression))
        .build();
    // the task id keeps file names unique across batches and shards of this JVM; the operation
    // id (a random UUID per factory) across processes
    OutputFileFactory factory = OutputFileFactory.builderFor(table, 0, TASKS.incrementAndGet())
        .format(format)
        .build();
    FileIO io = table.io();
    if (spec.isUnpartitioned()) {
      rolling = new RollingDataWriter<>(writers, factory, io, targetSize, spec, null);
      fanout = null;
      key = null;
      wrapper = null;
    } else {
      fanout = new FanoutDataWriter<>(writers, factory, io, targetSize);
      rolling = null;
      key = new PartitionKey(spec, schema);
      wrapper = new InternalRecordWrapper(schema.asStruct());
    }
  }

  void write(Record record) {
    if (rolling != null) {
      rolling.write(record);
    } else {
      key.partition(wrapper.wrap(record));
      fanout.write(record, spec, key);
    }
  }

  /** Closes the open files and returns every data file written. */
  List<DataFile> finish() {
    closed = true;
    try {
      if (rolling != null) {
        rolling.close();
        files.addAll(rolling.result().dataFiles());
      } else {
        fanout.close();
        files.addAll(fanout.result().dataFiles());
      }
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close CDC data files: " + e.getMessage(), e);
    }
  }

  /** Closes quietly (after a failure) and deletes every file this sink wrote. */
  void abort() {
    if (!closed) {
      closed = true;
      try {
        if (rolling != null) {
          rolling.close();
          files.addAll(rolling.result().dataFiles());
        } else {
          fanout.close();
          files.addAll(fanout.result().dataFiles());
        }
      } catch (IOException | RuntimeException e) {
        // fall through: delete what we know of
      }
    }
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
