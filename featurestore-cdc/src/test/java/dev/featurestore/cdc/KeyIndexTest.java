package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

/**
 * The key index's table on its own: random puts, overwrites and removes (backward-shift deletion
 * across growth) agree with a hash map; entries of a removed file read as absent.
 */
class KeyIndexTest {
  private static DataFile file(int i) {
    return DataFiles.builder(PartitionSpec.unpartitioned()).withPath("file:/t/data/f" + i + ".parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(100).withRecordCount(1_000_000).build();
  }

  @Test
  void randomPutsAndRemoves_agreeWithAHashMap() {
    KeyIndex index = new KeyIndex();
    index.reset(0, -1);
    List<DataFile> files = List.of(file(0), file(1), file(2));
    files.forEach(index::addFile);
    Map<String, Long> model = new HashMap<>();
    Random random = new Random(11);
    for (int step = 0; step < 200_000; step++) {
      String doc = "d" + random.nextInt(20_000);
      KeyIndex.Key key = KeyIndex.key("users", doc);
      if (random.nextInt(3) == 0) {
        index.remove(key);
        model.remove(doc);
      } else {
        int f = random.nextInt(3);
        long position = random.nextInt(1_000_000);
        index.put(key, f, position);
        model.put(doc, ((long) f << 32) | position);
      }
    }
    assertThat(index.size()).isEqualTo(model.size());
    for (int d = 0; d < 20_000; d++) {
      KeyIndex.Location found = index.find(KeyIndex.key("users", "d" + d));
      Long expected = model.get("d" + d);
      if (expected == null) {
        assertThat(found).as("d" + d).isNull();
      } else {
        assertThat(found).as("d" + d).isNotNull();
        assertThat(found.file()).isSameAs(files.get((int) (expected >>> 32)));
        assertThat(found.position()).isEqualTo(expected & 0xffffffffL);
      }
    }
  }

  @Test
  void entriesOfARemovedFile_readAsAbsent_andKeysOfOtherCollectionsAreDistinct() {
    KeyIndex index = new KeyIndex();
    index.reset(10, 5);
    int a = index.addFile(file(0));
    int b = index.addFile(file(1));
    index.put(KeyIndex.key("users", "1"), a, 0);
    index.put(KeyIndex.key("orders", "1"), b, 3);
    index.removeFile(file(0).location());
    assertThat(index.find(KeyIndex.key("users", "1"))).isNull();
    KeyIndex.Location orders = index.find(KeyIndex.key("orders", "1"));
    assertThat(orders.file().location()).isEqualTo(file(1).location());
    assertThat(orders.position()).isEqualTo(3);
    assertThat(KeyIndex.key("ab", "c")).isNotEqualTo(KeyIndex.key("a", "bc"));
    assertThat(index.snapshotId()).isEqualTo(5);
  }
}
