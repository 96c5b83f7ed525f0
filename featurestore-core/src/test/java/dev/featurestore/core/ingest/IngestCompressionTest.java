package dev.featurestore.core.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.FileDecision;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ParquetInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The compression an ingest writes with, read back from the Parquet footers of the files it wrote. */
class IngestCompressionTest {
  @TempDir Path dir;
  FeatureStore store;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** The codec of every column chunk of the files the table's current snapshot holds and {@code before} did not. */
  static Set<CompressionCodecName> codecsOfNewFiles(FeatureTable table, Set<String> before) throws Exception {
    Table iceberg = table.unwrap(Table.class);
    Set<CompressionCodecName> codecs = new HashSet<>();
    for (FileDecision file : table.explainPruning(Expressions.alwaysTrue()).files()) {
      if (before.contains(file.location())) {
        continue;
      }
      try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(iceberg.io().newInputFile(file.location())))) {
        for (BlockMetaData block : reader.getFooter().getBlocks()) {
          for (ColumnChunkMetaData column : block.getColumns()) {
            codecs.add(column.getCodec());
          }
        }
      }
    }
    return codecs;
  }

  static Set<String> files(FeatureTable table) {
    Set<String> files = new HashSet<>();
    table.explainPruning(Expressions.alwaysTrue()).files().forEach(f -> files.add(f.location()));
    return files;
  }

  @Test
  void defaultCompression_isZstd_inEveryIngestPath() throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
    table.ingest().synthetic(500, 1).commit();
    assertThat(codecsOfNewFiles(table, Set.of())).containsExactly(CompressionCodecName.ZSTD);

    Set<String> before = files(table);
    table.append(List.of(Map.of("entity_id", 1L, "event_time", "2026-01-01T00:00:00Z", "feature_a", 0.5)));
    assertThat(codecsOfNewFiles(table, before)).containsExactly(CompressionCodecName.ZSTD);

    before = files(table);
    Path csv = dir.resolve("rows.csv");
    Files.writeString(csv, "entity_id,event_time,feature_a\n2,2026-01-01T00:00:00Z,0.25\n");
    table.ingest().csv(csv).commit();
    assertThat(codecsOfNewFiles(table, before)).containsExactly(CompressionCodecName.ZSTD);
  }

  @ParameterizedTest
  @CsvSource({"snappy, SNAPPY", "gzip, GZIP", "uncompressed, UNCOMPRESSED", "zstd, ZSTD"})
  void tableCompression_isTheCodecOfTheWrittenFiles(String property, CompressionCodecName expected) throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .property("write.parquet.compression-codec", property).build());
    table.ingest().synthetic(500, 1).commit();
    Set<String> before = files(table);
    table.append(List.of(Map.of("entity_id", 1L, "event_time", "2026-01-01T00:00:00Z", "feature_a", 0.5)));

    assertThat(codecsOfNewFiles(table, Set.of())).containsExactly(expected);
    assertThat(codecsOfNewFiles(table, before)).containsExactly(expected);
  }

  @Test
  void aChangedCompression_appliesToFilesWrittenAfterwards() throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
    table.ingest().synthetic(100, 1).commit();
    Set<String> zstd = files(table);
    table.unwrap(Table.class).updateProperties().set("write.parquet.compression-codec", "snappy").commit();
    table.refresh();
    table.ingest().synthetic(100, 2).commit();

    assertThat(codecsOfNewFiles(table, Set.of()))
        .containsExactlyInAnyOrder(CompressionCodecName.ZSTD, CompressionCodecName.SNAPPY);
    assertThat(codecsOfNewFiles(table, zstd)).containsExactly(CompressionCodecName.SNAPPY);
    assertThat(new ArrayList<>(zstd)).isNotEmpty();
  }
}
