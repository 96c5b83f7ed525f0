package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.events;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Synthetic ingest vs Iceberg's own generic writer plus one append of the same rows. Runs only
 * with {@code -Dingest.bench=true} (rows from {@code -Dingest.bench.rows}, default 2M).
 */
class IngestThroughputTest {
  @TempDir Path dir;

  @Test
  void synthetic_vsIcebergGenericWriter() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("ingest.bench"));
    long rows = Long.getLong("ingest.bench.rows", 2_000_000L);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      int run = 0;
      for (int round = 0; round < 3; round++) {
        double[] rates = new double[3];
        for (int variant = 0; variant < 3; variant++) {
          FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("bench", "t" + run++), events().schema())
              .partitionSpec(events().partitionSpec()).build());
          long start = System.nanoTime();
          if (variant == 2) {
            baseline(table.unwrap(Table.class), rows);
          } else {
            ((IngestOperation) table.ingest()).syntheticWriters(variant == 0 ? 1 : 2).synthetic(rows, round).commit();
          }
          rates[variant] = rows * 1e9 / (System.nanoTime() - start);
        }
        System.out.printf("round %d: ours(1 writer)=%.0f ours(2 writers)=%.0f baseline=%.0f rows/s%n",
            round, rates[0], rates[1], rates[2]);
        if (round == 2) {
          System.out.printf("RESULT ingest_synthetic ours=%.0f baseline=%.0f unit=rows/s ratio=%.2f%n",
              rates[1], rates[2], rates[1] / rates[2]);
        }
      }
    }
  }

  /** Iceberg's generic writer with the same generated records, then one append. */
  private static void baseline(Table table, long rows) throws Exception {
    SyntheticRows generator = new SyntheticRows(table.schema(), Instant.now());
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers, files, table.io(), 512L * 1024 * 1024);
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    GenericRecord record = generator.newRecord();
    SplittableRandom random = SyntheticRows.blockRandom(0, 0);
    for (long i = 0; i < rows; i++) {
      generator.fill(record, random);
      key.partition(wrapper.wrap(record));
      writer.write(record, table.spec(), key);
    }
    writer.close();
    List<DataFile> dataFiles = writer.result().dataFiles();
    AppendFiles append = table.newAppend();
    dataFiles.forEach(append::appendFile);
    append.commit();
  }
}
