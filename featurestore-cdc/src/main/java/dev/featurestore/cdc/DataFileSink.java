package dev.featurestore.cdc;

import dev.featurestore.core.base.RecordFileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PropertyUtil;

/**
 * A CDC batch's Parquet data files, written with core's {@link RecordFileWriter} from records, or
 * for a change log from the entries themselves ({@link ChangeLogRows}, unpartitioned); compression
 * is the pipeline's, passed as a writer property. Not thread-safe; one sink per batch.
 */
final class DataFileSink {
  private static final AtomicLong TASKS = new AtomicLong();

  private final Table table;
  private final RecordFileWriter writer; // null when writing entries
  private final RollingDataWriter<Logged> entries; // null when writing records
  private final List<DataFile> files = new ArrayList<>();
  private final PendingFiles.Marker marker;

  DataFileSink(Table table, Schema schema, String compression, PendingFiles.Marker marker) {
    this(table, schema, Map.of(TableProperties.PARQUET_COMPRESSION, compression), marker);
  }

  /**
   * @param writerProperties writer properties on top of the table's (compression, encodings)
   * @param marker where each file is recorded before it is created
   */
  DataFileSink(Table table, Schema schema, Map<String, String> writerProperties, PendingFiles.Marker marker) {
    this.table = table;
    this.marker = marker;
    this.writer = new RecordFileWriter(table, schema, FileFormat.PARQUET, writerProperties, outputFiles(table, marker),
        table.io());
    this.entries = null;
  }

  /** A sink writing change-log rows from entries into the unpartitioned {@code table} (see {@link ChangeLogRows#fits}). */
  DataFileSink(Table table, ChangeLogRows rows, PendingFiles.Marker marker) {
    this.table = table;
    this.marker = marker;
    this.writer = null;
    long targetSize = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    this.entries = new RollingDataWriter<>(rows, outputFiles(table, marker), table.io(), targetSize, table.spec(), null);
  }

  private static OutputFileFactory outputFiles(Table table, PendingFiles.Marker marker) {
    // the task id keeps file names unique across batches and shards of this JVM; the operation
    // id (a random UUID per factory) across processes
    return OutputFileFactory.builderFor(table, 0, TASKS.incrementAndGet())
        .format(FileFormat.PARQUET)
        .ioSupplier(() -> marker.recording(table.io()))
        .build();
  }

  void write(Record record) {
    writer.write(record);
  }

  void write(Logged entry) {
    entries.write(entry);
  }

  /** Closes the open files and returns every data file written. */
  List<DataFile> finish() {
    if (writer != null) {
      files.addAll(writer.finish());
      return files;
    }
    try {
      entries.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close data files: " + e.getMessage(), e);
    }
    files.addAll(entries.result().dataFiles());
    return files;
  }

  /** Closes quietly (after a failure) and deletes every file this sink wrote. */
  void abort() {
    if (writer != null) {
      files.addAll(writer.abort());
    } else {
      try {
        entries.close(); // the files are deleted below, complete or not
      } catch (IOException | RuntimeException e) {
        // deleted below
      }
    }
    boolean all = true;
    for (String location : marker.recorded()) { // complete or not
      try {
        table.io().deleteFile(location);
      } catch (RuntimeException e) {
        all = false;
      }
    }
    if (all) {
      marker.done();
    }
  }

  /** The files are committed: the marker is no longer needed. */
  static void committed(PendingFiles.Marker marker) {
    marker.done();
  }

  /**
   * Deletes files that will not be committed, then their marker. A file that cannot be deleted
   * is an orphan at worst: invisible to readers, removed by orphan-file cleanup.
   */
  static void deleteFiles(Table table, List<DataFile> files, PendingFiles.Marker marker) {
    boolean all = true;
    for (DataFile file : files) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        all = false;
      }
    }
    if (all) {
      marker.done(); // otherwise the next open retries from the marker
    }
  }
}
