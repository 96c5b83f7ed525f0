package dev.featurestore.core.stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes feature_events rows with Iceberg's own generic writer, so stats can be tested without
 * the library's ingest path.
 */
final class StatsTestData {
  private static final AtomicLong TASK_IDS = new AtomicLong();
  static final Instant BASE_TIME = Instant.parse("2026-01-05T00:00:00Z");

  private StatsTestData() {}

  /** {@code count} rows; event times spread over {@code days} consecutive days. */
  static List<Record> rows(Schema schema, int count, int days) {
    List<Record> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Record record = GenericRecord.create(schema);
      record.setField("entity_id", (long) i);
      record.setField("event_time",
          OffsetDateTime.ofInstant(BASE_TIME.plusSeconds(86_400L * (i % days) + i), ZoneOffset.UTC));
      record.setField("feature_a", i * 0.5);
      record.setField("feature_b", i % 7 == 0 ? null : -i * 1.25);
      records.add(record);
    }
    return records;
  }

  /** Appends {@code records} in one commit (one file per partition) and returns the snapshot. */
  static Snapshot append(Table table, List<Record> records) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, TASK_IDS.incrementAndGet())
        .format(FileFormat.PARQUET)
        .build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers, files, table.io(), 128L << 20);
    try {
      for (Record record : records) {
        key.partition(wrapper.wrap(record));
        writer.write(record, table.spec(), key);
      }
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataWriteResult result = writer.result();
    AppendFiles append = table.newAppend();
    for (DataFile file : result.dataFiles()) {
      append.appendFile(file);
    }
    append.commit();
    return table.currentSnapshot();
  }
}
