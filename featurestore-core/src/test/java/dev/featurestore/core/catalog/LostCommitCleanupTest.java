package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit that loses the race to another writes a metadata file its catalog never points at;
 * the lost attempt's file is deleted (Iceberg retries from the new version), so the metadata
 * folder holds only the table's history (as a stream racing background maintenance does).
 */
class LostCommitCleanupTest {
  @TempDir Path dir;

  @Test
  void commitThatLostTheRace_leavesNoMetadataFileOutsideTheHistory() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(10, 1).commit();
      Catalog catalog = store.unwrap(Catalog.class);
      TableIdentifier ident = TableIdentifier.of(SyntheticFeatures.TABLE_ID.namespace(), SyntheticFeatures.TABLE_ID.name());
      for (int race = 0; race < 5; race++) {
        Table first = catalog.loadTable(ident);
        // the race Iceberg's own refresh-then-commit leaves open: second read its version, first commits, second's
        // compare-and-swap (after writing its metadata file) fails
        TableOperations second = ((HasTableOperations) catalog.loadTable(ident)).operations();
        TableMetadata read = second.current();
        first.updateProperties().set("first." + race, "1").commit();
        assertThatThrownBy(() -> second.commit(read, TableMetadata.buildFrom(read).setProperties(Map.of("second", "1")).build()))
            .isInstanceOf(CommitFailedException.class);
      }

      Table current = catalog.loadTable(ident);
      assertThat(current.properties()).containsKey("first.4").doesNotContainKey("second");
      TableMetadata metadata = ((HasTableOperations) current).operations().current();
      Set<String> history = new HashSet<>();
      history.add(Path.of(metadata.metadataFileLocation().replaceFirst("^file:", "")).getFileName().toString());
      metadata.previousFiles().forEach(e -> history.add(Path.of(e.file().replaceFirst("^file:", "")).getFileName().toString()));
      List<String> onDisk;
      try (Stream<Path> files = Files.list(Path.of(table.location().replaceFirst("^file:", "")).resolve("metadata"))) {
        onDisk = files.map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(".metadata.json") && !VersionHint.isCopy(n)).toList();
      }
      assertThat(onDisk).as("every metadata file is in the table's history").allMatch(history::contains);
      assertThat(onDisk).hasSize(history.size());
    }
  }
}
