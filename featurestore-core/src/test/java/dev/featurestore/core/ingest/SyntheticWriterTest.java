package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A synthetic ingest's rows depend on the seed only, not on how many writers take its blocks. */
class SyntheticWriterTest {
  @TempDir Path dir;

  @Test
  void sameSeed_sameRows_withOneOrThreeWriters() {
    long rows = SyntheticWriter.PARALLEL_ROWS + SyntheticRows.BLOCK_ROWS + 1_000; // 4 blocks, the last partial
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      long[] one = rows(store, "one", 1, rows, 7);
      long[] three = rows(store, "three", 3, rows, 7);
      assertThat(one[0]).isEqualTo(rows);
      assertThat(three).containsExactly(one);
      assertThat(rows(store, "other", 3, rows, 8)).isNotEqualTo(one);
    }
  }

  /** The table's row count and two order-independent checksums of its rows. */
  private static long[] rows(FeatureStore store, String name, int writers, long rows, long seed) {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("t", name), events().schema())
        .partitionSpec(events().partitionSpec()).build());
    ((IngestOperation) table.ingest()).syntheticWriters(writers).synthetic(rows, seed).commit();
    long count = 0;
    long sum = 0;
    long xor = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table.unwrap(Table.class)).build()) {
      for (Record record : records) {
        long hash = 1;
        for (int i = 0; i < record.size(); i++) {
          hash = hash * 1_000_003 + Objects.hashCode(record.get(i));
        }
        count++;
        sum += hash;
        xor ^= hash * 0x9E3779B97F4A7C15L;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new long[] {count, sum, xor};
  }
}
