package dev.featurestore.core.ingest;

import dev.featurestore.core.base.DataFileCloses;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * An ingest's data files: format and compression from table properties, one rolling file per
 * partition ({@link PartitionedFileWriter}), files created through the ingest's tracking FileIO so
 * a failed ingest can delete every one of them. Rows hold Iceberg's generic values ({@link
 * #generic}: what {@link RowMapper} produces) or its internal ones ({@link #internal}: synthetic
 * rows, written by Iceberg's internal Parquet writer). Not thread-safe: parallel ingests use one
 * sink per thread.
 */
final class FileSink {
  private final PartitionedFileWriter<StructLike> writer;

  private FileSink(PartitionedFileWriter<StructLike> writer) {
    this.writer = writer;
  }

  /** A sink for rows of Iceberg's generic representation ({@code GenericRecord}s). */
  static FileSink generic(Table table, Schema schema, TrackingFileIO io, int partitionId) {
    FileFormat format = format(table);
    @SuppressWarnings({"unchecked", "rawtypes"})
    FileWriterFactory<StructLike> writers = (FileWriterFactory) new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(format)
        .build();
    return new FileSink(newWriter(table, schema, io, partitionId, format, writers, false));
  }

  /**
   * A sink for rows of Iceberg's internal representation (micros, days); Parquet tables only, any
   * other format gets the generic writer, so callers check {@link #writesInternal(Table)} first.
   */
  static FileSink internal(Table table, Schema schema, TrackingFileIO io, int partitionId) {
    FileFormat format = format(table);
    if (format != FileFormat.PARQUET) {
      throw new IllegalStateException("Cannot write internal rows: not a Parquet table: " + format);
    }
    FileWriterFactory<StructLike> writers = new InternalFileWriterFactory(table, schema, java.util.Map.of());
    return new FileSink(newWriter(table, schema, io, partitionId, format, writers, true));
  }

  /** True when the table's data files are Parquet, which {@link #internal} writes. */
  static boolean writesInternal(Table table) {
    return format(table) == FileFormat.PARQUET;
  }

  private static FileFormat format(Table table) {
    return FileFormat.fromString(PropertyUtil.propertyAsString(
        table.properties(), TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  private static PartitionedFileWriter<StructLike> newWriter(Table table, Schema schema, TrackingFileIO io,
      int partitionId, FileFormat format, FileWriterFactory<StructLike> writers, boolean internalValues) {
    OutputFileFactory files = OutputFileFactory.builderFor(table, partitionId, System.nanoTime())
        .format(format)
        .ioSupplier(() -> io)
        .build();
    long targetSize = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    PartitionFunction partitioner = table.spec().isUnpartitioned()
        ? null : new PartitionFunction(table.spec(), schema, internalValues);
    return new PartitionedFileWriter<>(writers, files, io, targetSize, table.spec(), partitioner,
        DataFileCloses.inParallel(table));
  }

  void write(StructLike row) {
    writer.write(row);
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
