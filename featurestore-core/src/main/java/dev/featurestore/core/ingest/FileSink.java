package dev.featurestore.core.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
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
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes records of one schema into data files of the table's current spec: a fanout writer
 * (one open file per partition) for partitioned tables, a rolling writer otherwise. Files roll
 * at {@code write.target-file-size-bytes}; format and compression come from table properties.
 * Not thread-safe: parallel ingests use one sink per thread.
 */
final class FileSink {
  private final PartitionSpec spec;
  private final PartitioningWriter<Record, DataWriteResult> fanout;
  private final RollingDataWriter<Record> rolling;
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  private boolean closed;

  FileSink(Table table, Schema schema, TrackingFileIO io, int partitionId) {
    this.spec = table.spec();
    FileFormat format = FileFormat.fromString(PropertyUtil.propertyAsString(
        table.properties(), TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    long targetSize = PropertyUtil.propertyAsLong(
        table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(format)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, partitionId, System.nanoTime())
        .format(format)
        .ioSupplier(() -> io)
        .build();
    if (spec.isUnpartitioned()) {
      this.rolling = new RollingDataWriter<>(writers, files, io, targetSize, spec, null);
      this.fanout = null;
      this.key = null;
      this.wrapper = null;
    } else {
      this.fanout = new FanoutDataWriter<>(writers, files, io, targetSize);
      this.rolling = null;
      this.key = new PartitionKey(spec, schema);
      this.wrapper = new InternalRecordWrapper(schema.asStruct());
    }
  }

  void write(Record record) {
    if (rolling != null) {
      rolling.write(record);
    } else {
      // partition transforms need Iceberg's internal values (micros for timestamps)
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
        return rolling.result().dataFiles();
      }
      fanout.close();
      return fanout.result().dataFiles();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close data files: " + e.getMessage(), e);
    }
  }

  /** Closes quietly after a failure; the caller deletes the files through the tracking FileIO. */
  void abort() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (rolling != null) {
        rolling.close();
      } else {
        fanout.close();
      }
    } catch (IOException | RuntimeException e) {
      // the files are deleted by location anyway
    }
  }
}
