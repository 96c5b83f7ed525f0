package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Internal, shared by ingest and the CDC module: writes generic records of one schema into data
 * files of the table's current spec with Iceberg's generic writer: a fanout writer (one open file
 * per partition) for partitioned tables, a rolling writer otherwise. Files roll at {@code
 * write.target-file-size-bytes}. Nothing is committed; the caller commits {@link #finish()}'s
 * files or throws them away. Not thread-safe: one writer per thread.
 */
public final class RecordFileWriter {
  private final PartitionSpec spec;
  private final RollingDataWriter<Record> rolling;
  // one rolling writer per partition (as Iceberg's FanoutDataWriter keeps), closed together
  private final Map<StructLike, RollingDataWriter<Record>> partitions;
  private final FileWriterFactory<Record> factory;
  private final OutputFileFactory files;
  private final FileIO io;
  private final long targetSize;
  private final boolean remote;
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  // Iceberg opens data files (each with a new Hadoop Configuration) inside write and the
  // constructor, and closes them in finish: all run under this loader (see HadoopDefaultsHidden)
  private final ClassLoader loader = HadoopDefaultsHidden.forCurrentThread();
  private boolean closed;

  /**
   * @param writerProperties extra writer properties (for example the compression codec), on top
   *     of the table's
   * @param files where the files go (name, location, FileIO)
   * @param io the FileIO the writers use to remove files they abandon (empty ones)
   */
  public RecordFileWriter(Table table, Schema schema, FileFormat format, Map<String, String> writerProperties,
      OutputFileFactory files, FileIO io) {
    requireNonNull(table, "table is null");
    requireNonNull(schema, "schema is null");
    this.spec = table.spec();
    long targetSize = PropertyUtil.propertyAsLong(
        table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    GenericFileWriterFactory.Builder writers = new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(format);
    if (!writerProperties.isEmpty()) {
      writers.writerProperties(writerProperties);
    }
    this.factory = writers.build();
    this.files = files;
    this.io = io;
    this.targetSize = targetSize;
    this.remote = DataFileCloses.inParallel(table);
    ClassLoader previous = HadoopDefaultsHidden.enter(loader);
    try {
      if (spec.isUnpartitioned()) {
        this.rolling = new RollingDataWriter<>(factory, files, io, targetSize, spec, null);
        this.partitions = null;
        this.key = null;
        this.wrapper = null;
      } else {
        this.partitions = StructLikeMap.create(spec.partitionType());
        this.rolling = null;
        this.key = new PartitionKey(spec, schema);
        this.wrapper = new InternalRecordWrapper(schema.asStruct());
      }
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
  }

  public void write(Record record) {
    ClassLoader previous = HadoopDefaultsHidden.enter(loader);
    try {
      if (rolling != null) {
        rolling.write(record);
      } else {
        // partition transforms need Iceberg's internal values (micros for timestamps)
        key.partition(wrapper.wrap(record));
        RollingDataWriter<Record> writer = partitions.get(key);
        if (writer == null) {
          PartitionKey partition = key.copy();
          writer = new RollingDataWriter<>(factory, files, io, targetSize, spec, partition);
          partitions.put(partition, writer);
        }
        writer.write(record);
      }
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
  }

  /** Closes the open files and returns every data file written. */
  public List<DataFile> finish() {
    closed = true;
    try {
      return close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close data files: " + e.getMessage(), e);
    }
  }

  /**
   * Closes quietly after a failure and returns the data files it could complete (possibly none:
   * a caller that must delete every byte it wrote tracks locations itself).
   */
  public List<DataFile> abort() {
    if (closed) {
      return List.of();
    }
    closed = true;
    try {
      return close();
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  private List<DataFile> close() throws IOException {
    if (rolling != null) {
      ClassLoader previous = HadoopDefaultsHidden.enter(loader);
      try {
        rolling.close();
        return rolling.result().dataFiles();
      } finally {
        HadoopDefaultsHidden.exit(previous);
      }
    }
    return DataFileCloses.closeAll(new ArrayList<>(partitions.values()), remote, loader);
  }
}
