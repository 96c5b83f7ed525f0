package dev.featurestore.benchmarks;

import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * The baseline write path: Iceberg's own generic writer ({@link GenericFileWriterFactory}) with a
 * fanout writer (one open file per partition, rows in any order), then one {@code newAppend()}
 * commit. This is what a user without this library would write.
 */
final class IcebergWriter {
  private static final AtomicLong TASK_IDS = new AtomicLong();

  private IcebergWriter() {}

  /** Summary of one baseline append. */
  record Appended(long rows, int files, long bytes) {}

  /**
   * Writes {@code rows} rows, each produced by {@code fill} into one reused record, and commits
   * them as one append.
   */
  static Appended append(Table table, long rows, Consumer<Record> fill) throws IOException {
    Record record = GenericRecord.create(table.schema());
    return append(table, new Iterator<>() {
      long remaining = rows;

      @Override
      public boolean hasNext() {
        return remaining > 0;
      }

      @Override
      public Record next() {
        remaining--;
        fill.accept(record);
        return record;
      }
    });
  }

  static Appended append(Table table, Iterator<Record> records) throws IOException {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, TASK_IDS.incrementAndGet())
        .format(FileFormat.PARQUET)
        .build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    // timestamp partition transforms need Iceberg's internal representation (micros)
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    long targetFileSize = Long.parseLong(
        table.properties().getOrDefault("write.target-file-size-bytes", Long.toString(512L << 20)));
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers, files, table.io(), targetFileSize);
    long count = 0;
    try {
      while (records.hasNext()) {
        Record record = records.next();
        key.partition(wrapper.wrap(record));
        writer.write(record, table.spec(), key);
        count++;
      }
    } finally {
      writer.close();
    }
    DataWriteResult result = writer.result();
    AppendFiles append = table.newAppend();
    long bytes = 0;
    for (DataFile file : result.dataFiles()) {
      append.appendFile(file);
      bytes += file.fileSizeInBytes();
    }
    append.commit();
    return new Appended(count, result.dataFiles().size(), bytes);
  }
}
