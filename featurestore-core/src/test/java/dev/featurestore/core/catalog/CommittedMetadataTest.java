package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a commit of the store's catalog the operations hold the committed metadata without reading
 * the file back ({@link CommittedMetadata}): it must be exactly what a reader of that file gets, and
 * a later refresh must still see other writers' commits.
 */
class CommittedMetadataTest {
  @TempDir Path dir;

  @Test
  void afterACommit_theOperationsHoldTheWrittenMetadataExactly_withoutReadingItBack() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(10, 1).commit();
      Catalog catalog = store.unwrap(Catalog.class);
      TableIdentifier ident = TableIdentifier.of(SyntheticFeatures.TABLE_ID.namespace(), SyntheticFeatures.TABLE_ID.name());
      Table iceberg = catalog.loadTable(ident);
      TableOperations ops = ((HasTableOperations) iceberg).operations();

      // a data commit (a new snapshot, the metadata log grows) through Iceberg's own API
      table.ingest().synthetic(10, 2).commit();
      iceberg.refresh();
      TableMetadata base = ops.current();
      TableMetadata next = TableMetadata.buildFrom(base).setProperties(Map.of("k", "v")).build();
      ops.commit(base, next);
      TableMetadata installed = ops.current();

      // not read back: the objects of the committed metadata itself
      assertThat(installed.schema()).isSameAs(next.schema());
      assertThat(installed.currentSnapshot()).isSameAs(next.currentSnapshot());
      assertThat(installed.changes()).isEmpty();
      // exactly what the catalog points at and a reader of the file builds
      TableMetadata loaded = ((HasTableOperations) catalog.loadTable(ident)).operations().current();
      assertThat(installed.metadataFileLocation()).isEqualTo(loaded.metadataFileLocation());
      TableMetadata read = TableMetadataParser.read(ops.io(), installed.metadataFileLocation());
      assertThat(json(installed)).isEqualTo(json(read)); // the same content; a JSON object's key order is not content
      assertThat(installed.lastUpdatedMillis()).isEqualTo(read.lastUpdatedMillis());
      assertThat(installed.previousFiles()).isEqualTo(read.previousFiles());
      assertThat(installed.nextRowId()).isEqualTo(read.nextRowId());
      assertThat(installed.formatVersion()).isEqualTo(read.formatVersion());

      // the next commit builds on it (its metadata log names the installed file)
      iceberg.updateProperties().set("k2", "v2").commit();
      TableMetadata after = ops.current();
      assertThat(after.previousFiles().get(after.previousFiles().size() - 1).file()).isEqualTo(installed.metadataFileLocation());
      assertThat(json(after)).isEqualTo(json(TableMetadataParser.read(ops.io(), after.metadataFileLocation())));
    }
  }

  private static JsonNode json(TableMetadata metadata) {
    try {
      return new ObjectMapper().readTree(TableMetadataParser.toJson(metadata));
    } catch (JsonProcessingException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aRefreshAfterOwnCommit_seesAnotherWritersLaterCommit() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      Catalog catalog = store.unwrap(Catalog.class);
      TableIdentifier ident = TableIdentifier.of(SyntheticFeatures.TABLE_ID.namespace(), SyntheticFeatures.TABLE_ID.name());
      Table first = catalog.loadTable(ident);
      Table second = catalog.loadTable(ident);

      first.updateProperties().set("a", "1").commit();
      second.updateProperties().set("b", "2").commit(); // second's own operations: a refresh, then its commit
      assertThat(first.properties()).containsEntry("a", "1").doesNotContainKey("b");
      first.refresh();
      assertThat(first.properties()).containsEntry("a", "1").containsEntry("b", "2");

      // a commit from an installed but stale base: the compare-and-swap fails, Iceberg refreshes and retries
      second.updateProperties().set("c", "3").commit();
      first.updateProperties().set("d", "4").commit();
      Table fresh = catalog.loadTable(ident);
      assertThat(fresh.properties()).containsKeys("a", "b", "c", "d");
      assertThat(first.properties()).containsKeys("a", "b", "c", "d");
    }
  }
}
