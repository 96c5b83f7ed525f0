package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * version-hint.text and the v<N>.metadata.json copy beside the metadata. Iceberg's HadoopTables
 * needs more of Hadoop than the store ships (UserGroupInformation), so {@link #pathBased} reads
 * the table the way HadoopTableOperations and DuckDB's iceberg_scan do: the number in the hint,
 * then {@code v<N>.metadata.json}.
 */
class VersionHintTest {
  @TempDir Path dir;

  static Table pathBased(String tableLocation) throws java.io.IOException {
    Path metadata = Path.of(tableLocation).resolve("metadata");
    int version = Integer.parseInt(Files.readString(metadata.resolve("version-hint.text")).trim());
    org.apache.iceberg.io.FileIO io = new org.apache.iceberg.inmemory.InMemoryFileIO();
    org.apache.iceberg.TableMetadata read = org.apache.iceberg.TableMetadataParser.read(
        org.apache.iceberg.Files.localInput(metadata.resolve("v" + version + ".metadata.json").toFile()));
    return new org.apache.iceberg.BaseTable(new org.apache.iceberg.StaticTableOperations(read, io), tableLocation);
  }

  @Test
  void everyCommit_writesTheHint_andHadoopTablesFindsTheCurrentVersion() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();
      table.ingest().synthetic(50, 2).commit();
      table.evolveSchema().addColumn("extra", org.apache.iceberg.types.Types.LongType.get(), null).commit();
      Path metadata = Path.of(table.location()).resolve("metadata");
      String current = ((HasTableOperations) table.unwrap(Table.class)).operations().current().metadataFileLocation();
      long version = Long.parseLong(Path.of(current).getFileName().toString().substring(0, 5));

      assertThat(Files.readString(metadata.resolve("version-hint.text"))).isEqualTo(Long.toString(version));
      Table pathBased = pathBased(table.location());
      assertThat(pathBased.currentSnapshot().snapshotId())
          .isEqualTo(table.snapshots().current().orElseThrow().snapshotId());
      assertThat(pathBased.schema().findField("extra")).isNotNull();
      // the copy two versions back is gone, the previous one kept for a reader that just read the old hint
      try (Stream<Path> files = Files.list(metadata)) {
        assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.matches("v\\d+\\.metadata\\.json")))
            .containsExactlyInAnyOrder("v" + version + ".metadata.json", "v" + (version - 1) + ".metadata.json");
      }
      try (Stream<Path> files = Files.list(metadata)) {
        assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("."))).isEmpty();
      }
    }
  }

  @Test
  void hintThatCannotBeWritten_doesNotFailTheCommit() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      Path metadata = Path.of(table.location()).resolve("metadata");
      Files.delete(metadata.resolve("version-hint.text"));
      Files.createDirectories(metadata.resolve("version-hint.text").resolve("blocked")); // a rename cannot replace it

      long rows = table.ingest().synthetic(10, 1).commit().rows();

      assertThat(rows).isEqualTo(10);
      assertThat(table.query().count()).isEqualTo(10);
      assertThat(Files.isDirectory(metadata.resolve("version-hint.text"))).isTrue();
    }
  }

  @Test
  void theHintAndCopies_surviveOrphanFileRemoval() throws Exception {
    java.time.Clock later = java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofDays(30));
    try (FeatureStore store = FeatureStore.builder().root(dir).clock(later).build()) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(10, 1).commit();
      table.ingest().synthetic(10, 2).commit();
      table.maintenance().removeOrphanFiles().execute();
      assertThat(pathBased(table.location()).currentSnapshot().snapshotId())
          .isEqualTo(table.snapshots().current().orElseThrow().snapshotId());
    }
  }
}
