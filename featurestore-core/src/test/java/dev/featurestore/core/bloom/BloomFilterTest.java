package dev.featurestore.core.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BloomFilter;
import dev.featurestore.BloomFilterColumn;
import dev.featurestore.BloomFilterUpdate;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ParquetInput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BloomFilterTest {
  @TempDir Path dir;

  @Test
  void hashes_areParquets() {
    BlockSplitBloomFilter parquet = new BlockSplitBloomFilter(1024);
    Random random = new Random(1);
    for (int i = 0; i < 2000; i++) {
      long l = random.nextLong();
      int n = random.nextInt();
      assertThat(BloomFilter.hashLong(l)).isEqualTo(parquet.hash(l));
      assertThat(BloomFilter.hashInt(n)).isEqualTo(parquet.hash(n));
      byte[] bytes = new byte[i % 100];
      random.nextBytes(bytes);
      assertThat(BloomFilter.hashBytes(bytes)).isEqualTo(parquet.hash(Binary.fromConstantByteArray(bytes)));
    }
    assertThat(BloomFilter.hashBytes("entity-42".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(parquet.hash(Binary.fromString("entity-42")));
  }

  @Test
  void sizing_isParquets() {
    for (long n : new long[] {0, 1, 10, 1_000, 12_345, 100_000, 1_000_000, 50_000_000}) {
      for (double p : new double[] {0.5, 0.1, 0.01, 0.001, 0.0001}) {
        int parquet = new BlockSplitBloomFilter(BlockSplitBloomFilter.optimalNumOfBits(n, p) / 8,
            BloomFilter.MAX_BYTES).getBitsetSize();
        assertThat(BloomFilter.create(n, p).sizeInBytes()).as(n + " " + p).isEqualTo(parquet);
        assertThat(BloomFilter.optimalNumBytes(n, p)).isEqualTo(parquet);
      }
    }
  }

  @Test
  void bits_areParquets() throws Exception {
    BloomFilter ours = BloomFilter.create(5_000, 0.01);
    BlockSplitBloomFilter parquet = new BlockSplitBloomFilter(ours.sizeInBytes());
    Random random = new Random(2);
    for (int i = 0; i < 5_000; i++) {
      long v = random.nextLong();
      ours.addLong(v);
      parquet.insertHash(parquet.hash(v));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parquet.writeTo(out);
    assertThat(ours.toBytes()).isEqualTo(out.toByteArray());
    assertThat(BloomFilter.fromBytes(out.toByteArray())).isEqualTo(ours);
  }

  @Test
  void measuredFpp_isWithinOneAndAHalfTimesTheConfiguredRate() {
    for (double fpp : new double[] {0.01, 0.05}) {
      int items = 100_000;
      BloomFilter filter = BloomFilter.create(items, fpp);
      for (long key = 0; key < items; key++) {
        filter.addLong(key * 2); // even keys present
      }
      int falsePositives = 0;
      int absent = 100_000;
      for (long i = 0; i < absent; i++) {
        if (filter.mightContainLong(i * 2 + 1)) {
          falsePositives++;
        }
      }
      double measured = (double) falsePositives / absent;
      System.out.printf("bloom fpp configured=%.4f measured=%.5f estimated=%.5f bytes=%d%n",
          fpp, measured, filter.expectedFpp(items), filter.sizeInBytes());
      assertThat(measured).isLessThanOrEqualTo(1.5 * fpp);
      assertThat(measured).isCloseTo(filter.expectedFpp(items), org.assertj.core.data.Offset.offset(0.3 * filter.expectedFpp(items) + 0.0005));
      for (long key = 0; key < items; key++) {
        assertThat(filter.mightContainLong(key * 2)).isTrue();
      }
    }
  }

  @Test
  void merge_copy_serialize() {
    BloomFilter a = BloomFilter.create(1000, 0.01);
    BloomFilter b = BloomFilter.create(1000, 0.01);
    a.addString("x");
    b.addString("y");
    BloomFilter merged = a.copy().merge(b);
    assertThat(merged.mightContainString("x")).isTrue();
    assertThat(merged.mightContainString("y")).isTrue();
    assertThat(a.mightContainString("y")).isFalse();
    assertThat(BloomFilter.fromBytes(merged.toBytes())).isEqualTo(merged).hasSameHashCodeAs(merged);
    assertThatThrownBy(() -> a.merge(BloomFilter.ofSize(64)))
        .hasMessage("Cannot merge bloom filters: sizes differ: " + a.sizeInBytes() + " and 64 bytes");
    assertThatThrownBy(() -> BloomFilter.fromBytes(new byte[48]))
        .hasMessage("Cannot read bloom filter: length must be a power of two from 32 bytes to 128 MiB: 48");
    assertThatThrownBy(() -> BloomFilter.create(10, 1.0))
        .hasMessage("Cannot size bloom filter: false-positive rate must be in (0, 1): 1.0");
  }

  @Test
  void parquetFooterFilter_answersAsOurs() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
          .bloomFilter("entity_id", 5_000).build());
      List<Map<String, Object>> rows = new ArrayList<>();
      for (long id = 0; id < 5_000; id++) {
        rows.add(Map.of("entity_id", id * 3, "event_time", "2026-01-01T00:00:00Z", "feature_a", id / 7.0));
      }
      table.append(rows);
      DataFile file = onlyFile(table);
      Table iceberg = table.unwrap(Table.class);
      try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(iceberg.io().newInputFile(file.location())))) {
        BlockMetaData block = reader.getFooter().getBlocks().get(0);
        ColumnChunkMetaData chunk = block.getColumns().get(0);
        assertThat(chunk.getPath().toDotString()).isEqualTo("entity_id");
        BloomFilterReader bloomReader = reader.getBloomFilterDataReader(block);
        org.apache.parquet.column.values.bloomfilter.BloomFilter parquet = bloomReader.readBloomFilter(chunk);
        BloomFilter ours = BloomFilters.toValue(parquet);
        assertThat(ours.sizeInBytes()).isEqualTo(BloomFilter.optimalNumBytes(5_000, 0.01));
        int agreeAbsent = 0;
        for (long v = 0; v < 30_000; v++) {
          boolean theirs = parquet.findHash(parquet.hash(v));
          assertThat(ours.mightContainLong(v)).as("key " + v).isEqualTo(theirs);
          if (v % 3 == 0 && v < 15_000) {
            assertThat(ours.mightContainLong(v)).isTrue();
          } else if (!theirs) {
            agreeAbsent++;
          }
        }
        assertThat(agreeAbsent).isGreaterThan(19_000);
        // the same filter built here from the same keys has the same bits
        BloomFilter rebuilt = BloomFilter.create(5_000, 0.01);
        for (long id = 0; id < 5_000; id++) {
          rebuilt.addLong(id * 3);
        }
        assertThat(rebuilt).isEqualTo(ours);
      }
      assertThat(BloomFilters.read(iceberg.io().newInputFile(file.location()), "entity_id"))
          .singleElement().satisfies(f -> assertThat(f).contains(BloomFilters.read(
              iceberg.io().newInputFile(file.location()), "entity_id").get(0).orElseThrow()));
      assertThat(BloomFilters.read(iceberg.io().newInputFile(file.location()), "feature_a"))
          .containsExactly(Optional.empty());
    }
  }

  @Test
  void bloomColumns_setOnCreate_changeableLater() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
          .bloomFilter("entity_id", 1_000).build());
      assertThat(table.bloomFilterColumns()).containsOnlyKeys("entity_id");
      Map<String, BloomFilterColumn> preview = table.updateBloomFilters().enable("feature_a", 2_000, 0.05).apply();
      assertThat(preview).containsOnlyKeys("entity_id", "feature_a");
      assertThat(table.bloomFilterColumns()).containsOnlyKeys("entity_id");
      BloomFilterUpdate update = table.updateBloomFilters().enable("feature_a", 2_000, 0.05).disable("entity_id");
      Map<String, BloomFilterColumn> now = update.commit();
      assertThatThrownBy(update::commit)
          .isInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot commit bloom filter update of table " + table.id() + ": already committed");
      assertThat(now).containsExactlyEntriesOf(Map.of("feature_a", new BloomFilterColumn("feature_a", OptionalLong.of(2_000), 0.05)));
      table.refresh();
      assertThat(table.bloomFilterColumns()).isEqualTo(now);
      table.append(List.of(Map.of("entity_id", 1L, "event_time", "2026-01-01T00:00:00Z", "feature_a", 0.5)));
      Table iceberg = table.unwrap(Table.class);
      DataFile file = onlyFile(table);
      assertThat(BloomFilters.read(iceberg.io().newInputFile(file.location()), "entity_id")).containsExactly(Optional.empty());
      assertThat(BloomFilters.read(iceberg.io().newInputFile(file.location()), "feature_a")).singleElement()
          .satisfies(f -> assertThat(f.orElseThrow().sizeInBytes()).isEqualTo(BloomFilter.optimalNumBytes(2_000, 0.05)));
      assertThatThrownBy(() -> table.updateBloomFilters().enable("nope", 10))
          .isExactlyInstanceOf(dev.featurestore.InvalidArgumentException.class)
          .hasMessage("Cannot add bloom filter: unknown column: nope");
    }
  }

  private static DataFile onlyFile(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(files).hasSize(1);
    return files.get(0);
  }
}
