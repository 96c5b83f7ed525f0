package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.storage.ParquetInput;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The files a pipeline writes: named by its flushes, placed under its location, compressed as set. */
class CdcTableFilesTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  CdcPipeline.Builder builder(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("s1")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO);
  }

  /** Data files every snapshot of the table added. */
  static Set<String> addedFiles(FeatureStore store, dev.featurestore.TableId id) {
    Table table = store.table(id).unwrap(Table.class);
    table.refresh();
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (DataFile file : snapshot.addedDataFiles(table.io())) {
        files.add(file.location());
      }
    }
    return files;
  }

  @Test
  void flushResult_namesTheDataFilesItCommitted_inEveryTable() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = builder(store).build()) {
      cdc.insert("users", "1", Map.of("name", "Ann"));
      cdc.insert("users", "2", Map.of("name", "Bob"));
      FlushResult first = cdc.flush();
      cdc.update("users", "1", Map.of("name", "Anna"));
      FlushResult second = cdc.flush();

      assertThat(first.dataFiles()).hasSize(first.filesWritten()).isNotEmpty();
      assertThat(second.dataFiles()).hasSize(second.filesWritten()).doesNotContainAnyElementsOf(first.dataFiles());
      Set<String> named = new HashSet<>(first.dataFiles());
      named.addAll(second.dataFiles());
      Set<String> committed = addedFiles(store, LOG);
      committed.addAll(addedFiles(store, STATE));
      assertThat(named).isEqualTo(committed);
      assertThat(cdc.flush().dataFiles()).isEmpty();
    }
  }

  @Test
  void tablesLocation_relative_placesTheTablesBesideTheWarehouse() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = builder(store).tablesLocation("streams/orders/").build()) {
      cdc.insert("users", "1", Map.of("name", "Ann"));
      FlushResult flushed = cdc.flush();

      Path base = dir.resolve("store").resolve("streams").resolve("orders").toAbsolutePath();
      assertThat(Path.of(stripScheme(store.table(LOG).location()))).isEqualTo(base.resolve("cdc").resolve("events"));
      assertThat(Path.of(stripScheme(store.table(STATE).location()))).isEqualTo(base.resolve("cdc").resolve("docs"));
      assertThat(flushed.dataFiles()).isNotEmpty().allSatisfy(f -> assertThat(Path.of(stripScheme(f))).startsWith(base));
    }
  }

  @Test
  void tablesLocation_absolute_isUsedAsItIs() {
    Path elsewhere = dir.resolve("elsewhere").toAbsolutePath();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = builder(store).tablesLocation(elsewhere.toString()).build()) {
      cdc.insert("users", "1", Map.of("name", "Ann"));
      cdc.flush();
      assertThat(Path.of(stripScheme(store.table(LOG).location()))).isEqualTo(elsewhere.resolve("cdc").resolve("events"));
      assertThat(CdcTestSupport.rows(store, LOG)).hasSize(1);
    }
  }

  @Test
  void tablesLocation_onABucket_isAPrefixOfTheStoresBucket() {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("s3store")).objectStorage(s3.b2ThroughGate()).build();
        CdcPipeline cdc = builder(store).tablesLocation("cdc-tables").build()) {
      cdc.insert("users", "1", Map.of("name", "Ann"));
      FlushResult flushed = cdc.flush();

      String warehouse = store.config().warehouseLocation().orElseThrow();
      String bucketRoot = warehouse.substring(0, warehouse.length() - "warehouse".length());
      assertThat(store.table(LOG).location()).isEqualTo(bucketRoot + "cdc-tables/cdc/events");
      String prefix = bucketRoot.substring(bucketRoot.indexOf('/', "s3://".length()) + 1);
      List<String> keys = s3.keys(prefix + "cdc-tables/cdc/events/data/");
      assertThat(keys).isNotEmpty();
      assertThat(flushed.dataFiles()).allSatisfy(f -> assertThat(f).startsWith(bucketRoot + "cdc-tables/cdc/"));
      assertThat(s3.keys(prefix + "warehouse/cdc/events/")).isEmpty();
      assertThat(CdcTestSupport.rows(store, STATE)).hasSize(1);
    }
  }

  @Test
  void tablesLocation_badValues_areRefused() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      assertThatThrownBy(() -> builder(store).tablesLocation("a/../b"))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot set CDC tables location: '..' segment: a/../b");
      assertThatThrownBy(() -> builder(store).tablesLocation(" "))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot set CDC tables location: blank: ' '");
      assertThatThrownBy(() -> builder(store).tablesLocation(null))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot build CDC pipeline: location is null: null");
      assertThat(store.tableExists(LOG)).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(CdcCompression.class)
  void compression_isTheCodecInTheWrittenFilesFooters(CdcCompression compression) throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = builder(store).compression(compression).build()) {
      for (int i = 0; i < 20; i++) {
        cdc.insert("users", Integer.toString(i), Map.of("name", "user " + i, "n", i));
      }
      FlushResult flushed = cdc.flush();
      Table table = store.table(LOG).unwrap(Table.class);
      CompressionCodecName expected = compression == CdcCompression.NONE ? CompressionCodecName.UNCOMPRESSED
          : CompressionCodecName.valueOf(compression.name());
      List<CompressionCodecName> codecs = new ArrayList<>();
      for (String file : flushed.dataFiles()) {
        try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(table.io().newInputFile(file)))) {
          for (BlockMetaData block : reader.getFooter().getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
              codecs.add(column.getCodec());
            }
          }
        }
      }
      assertThat(codecs).isNotEmpty().containsOnly(expected);
    }
  }

  private static String stripScheme(String location) {
    return location.startsWith("file:") ? java.net.URI.create(location).getPath() : location;
  }
}
