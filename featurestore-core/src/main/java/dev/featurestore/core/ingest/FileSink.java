package dev.featurestore.core.ingest;

import dev.featurestore.core.base.RecordFileWriter;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * An ingest's data files: format and compression from table properties, files created through
 * the ingest's tracking FileIO so a failed ingest can delete every one of them. Not thread-safe:
 * parallel ingests use one sink per thread.
 */
final class FileSink {
  private final RecordFileWriter writer;

  FileSink(Table table, Schema schema, TrackingFileIO io, int partitionId) {
    FileFormat format = FileFormat.fromString(PropertyUtil.propertyAsString(
        table.properties(), TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    OutputFileFactory files = OutputFileFactory.builderFor(table, partitionId, System.nanoTime())
        .format(format)
        .ioSupplier(() -> io)
        .build();
    this.writer = new RecordFileWriter(table, schema, format, Map.of(), files, io);
  }

  void write(Record record) {
    writer.write(record);
  }

  /** Closes the open files and returns every data file written. */
  List<DataFile> finish() {
    return writer.finish();
  }

  /** Closes quietly after a failure; the caller deletes the files through the tracking FileIO. */
  void abort() {
    writer.abort();
  }
}
