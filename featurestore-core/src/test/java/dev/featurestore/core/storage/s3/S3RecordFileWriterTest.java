package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.base.RecordFileWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Exception;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a bucket, RecordFileWriter closes the files of a partitioned write together (each close
 * uploads the file): every file lands and reads back; a close that fails fails the write, typed,
 * after the other files were closed.
 */
class S3RecordFileWriterTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  private static final OffsetDateTime DAY0 = OffsetDateTime.parse("2026-01-01T00:00:00Z");

  @Test
  void partitionedWrite_onABucket_closesEveryFile_andEveryRowReadsBack() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      Table table = dailyTable(store, "all_close");
      RecordFileWriter writer = new RecordFileWriter(table, table.schema(), FileFormat.PARQUET, Map.of(),
          OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build(), table.io());
      List<Record> written = write(table, writer, 12);

      List<DataFile> files = writer.finish();

      assertThat(files).hasSize(12);
      var append = table.newAppend();
      files.forEach(append::appendFile);
      append.commit();
      List<Record> read = new ArrayList<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        rows.forEach(read::add);
      }
      assertThat(read).containsExactlyInAnyOrderElementsOf(written);
    }
  }

  @Test
  void aFailingClose_failsTheWrite_afterClosingTheOtherFiles() {
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      Table table = dailyTable(store, "one_fails");
      RecordFileWriter writer = new RecordFileWriter(table, table.schema(), FileFormat.PARQUET, Map.of(),
          OutputFileFactory.builderFor(table, 1, 2).format(FileFormat.PARQUET).build(), table.io());
      write(table, writer, 5);
      // the bucket answers 500 to every upload of one day's file
      s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains("2026-01-03"));

      assertThatThrownBy(writer::finish)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessage("Cannot close data files: Failed to close current writer")
          .hasRootCauseInstanceOf(S3Exception.class);
      // the four other days were uploaded all the same (their closes ran to the end)
      assertThat(s3.keys("warehouse/features/one_fails/data/"))
          .hasSize(4)
          .noneMatch(k -> k.contains("event_time_day=2026-01-03"));
    } finally {
      s3.gate().reset();
    }
  }

  private static Table dailyTable(FeatureStore store, String name) {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("features", name), SyntheticFeatures.schema())
        .partitionBy(PartitionSpecBuilder.spec(b -> b.day("event_time"))).build());
    return table.unwrap(Table.class);
  }

  /** 100 rows on each of {@code days} days, interleaved (every file stays open to the end). */
  private static List<Record> write(Table table, RecordFileWriter writer, int days) {
    List<Record> written = new ArrayList<>();
    for (long i = 0; i < 100L * days; i++) {
      GenericRecord record = GenericRecord.create(table.schema());
      record.setField("entity_id", i);
      record.setField("event_time", DAY0.plusDays(i % days).plusSeconds(i));
      record.setField("feature_a", i * 0.5);
      record.setField("feature_b", 1.0);
      writer.write(record);
      written.add(record.copy());
    }
    return written;
  }
}
