package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableAlreadyExistsException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TableNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.storage.LocalFileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeatureStoreTest {
  @TempDir Path dir;

  private static TableDefinition events() {
    return TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
        .build();
  }

  @Test
  void openLocal_createsCatalogFileAndWarehouse() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(events());
      assertThat(dir.resolve("catalog.db")).exists();
      assertThat(dir.resolve("warehouse")).isDirectory();
      assertThat(store.unwrap(Catalog.class).name()).isEqualTo("featurestore");
      assertThat(store.unwrap(FileIO.class)).isInstanceOf(LocalFileIO.class);
    }
  }

  @Test
  void createTable_thenLoadListExistsDrop() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable created = store.createTable(events());
      assertThat(created.id()).isEqualTo(SyntheticFeatures.TABLE_ID);
      assertThat(created.formatVersion()).isEqualTo(2);
      assertThat(created.spec().fields()).hasSize(1);
      assertThat(created.location()).startsWith(dir.resolve("warehouse").toAbsolutePath().toString());
      assertThat(store.tableExists(SyntheticFeatures.TABLE_ID)).isTrue();
      assertThat(store.namespaces()).containsExactly("features");
      assertThat(store.listTables()).containsExactly(SyntheticFeatures.TABLE_ID);
      assertThat(store.table("features.feature_events").schema().asStruct())
          .isEqualTo(created.schema().asStruct());

      assertThat(store.dropTable(SyntheticFeatures.TABLE_ID, true)).isTrue();
      assertThat(store.tableExists(SyntheticFeatures.TABLE_ID)).isFalse();
      assertThat(store.dropTable(SyntheticFeatures.TABLE_ID, true)).isFalse();
    }
  }

  @Test
  void dropWithoutPurge_keepsFiles_dropWithPurge_deletesThem() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      String kept = store.createTable(events()).location();
      store.dropTable(SyntheticFeatures.TABLE_ID, false);
      assertThat(LocalFileIO.toPath(kept).resolve("metadata")).isNotEmptyDirectory();

      TableId other = TableId.of("features", "other");
      FeatureTable purged = store.createTable(TableDefinition.builder(other, SyntheticFeatures.schema()).build());
      Table table = purged.unwrap(Table.class);
      String metadata = ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
      store.dropTable(other, true);
      assertThat(LocalFileIO.toPath(metadata)).doesNotExist();
    }
  }

  @Test
  void createTable_whereADroppedTablesMetadataStillLives_failsAndPointsToRecovery() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable dropped = store.createTable(events());
      String location = dropped.location();
      dropped.ingest().synthetic(10, 1).commit();
      store.dropTable(SyntheticFeatures.TABLE_ID, false);
      assertThatThrownBy(() -> store.createTable(events()))
          .isInstanceOf(dev.featurestore.AlreadyExistsException.class)
          .hasMessage("Cannot create table features.feature_events: its location already holds table metadata"
              + " (a table dropped without purge, or a lost catalog): register it again with recoverCatalog(),"
              + " or delete it: " + location + "/metadata/");
      assertThat(store.tableExists(SyntheticFeatures.TABLE_ID)).isFalse();
    }
  }

  @Test
  void createTable_whereAnEmptyTableOfTheSameDefinitionWasDropped_registersItAgain() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable first = store.createTable(events());
      String metadata = ((org.apache.iceberg.HasTableOperations) first.unwrap(Table.class)).operations().current()
          .metadataFileLocation();
      store.dropTable(SyntheticFeatures.TABLE_ID, false);

      FeatureTable again = store.createTable(events());

      // what an interrupted create left looks the same: its first metadata file, no snapshot
      assertThat(((org.apache.iceberg.HasTableOperations) again.unwrap(Table.class)).operations().current()
          .metadataFileLocation()).isEqualTo(metadata);
      again.ingest().synthetic(10, 1).commit();
      assertThat(again.query().count()).isEqualTo(10);
    }
  }

  @Test
  void createTable_whereAnEmptyTableOfAnotherDefinitionWasDropped_fails() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      String location = store.createTable(events()).location();
      store.dropTable(SyntheticFeatures.TABLE_ID, false);
      TableDefinition other = TableDefinition.builder(SyntheticFeatures.TABLE_ID,
          new org.apache.iceberg.Schema(org.apache.iceberg.types.Types.NestedField.required(
              1, "entity_id", org.apache.iceberg.types.Types.LongType.get()))).build();

      assertThatThrownBy(() -> store.createTable(other))
          .isInstanceOf(dev.featurestore.AlreadyExistsException.class)
          .isNotInstanceOf(TableAlreadyExistsException.class)
          .hasMessage("Cannot create table features.feature_events: its location already holds table metadata"
              + " (a table dropped without purge, or a lost catalog): register it again with recoverCatalog(),"
              + " or delete it: " + location + "/metadata/");
    }
  }

  @Test
  void createTable_thatExists_fails() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(events());
      assertThatThrownBy(() -> store.createTable(events()))
          .isInstanceOf(TableAlreadyExistsException.class)
          .hasMessage("Cannot create table: table already exists: features.feature_events");
    }
  }

  @Test
  void loadTable_thatDoesNotExist_fails() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      assertThatThrownBy(() -> store.table("features.missing"))
          .isInstanceOf(TableNotFoundException.class)
          .hasMessage("Cannot load table: table does not exist: features.missing");
      assertThat(store.findTable(TableId.parse("nope.missing"))).isEmpty();
      assertThat(store.listTables("nope")).isEmpty();
    }
  }

  @Test
  void createTable_withPartitionOnUnknownColumn_failsWithValidation() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      TableDefinition bad = TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
          .partitionBy(s -> PartitionSpec.builderFor(s).identity("nope").build())
          .build();
      assertThatThrownBy(() -> store.createTable(bad))
          .isInstanceOf(ValidationException.class)
          .hasMessage("Cannot create table features.feature_events: Cannot find source column: nope");
      assertThat(store.tableExists(SyntheticFeatures.TABLE_ID)).isFalse();
    }
  }

  @Test
  void formatVersion3_isAllowed() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).formatVersion(3).build());
      assertThat(table.formatVersion()).isEqualTo(3);
    }
  }

  @Test
  void tablesSurviveReopen() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(events());
    }
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      assertThat(store.listTables()).containsExactly(SyntheticFeatures.TABLE_ID);
    }
  }

  @Test
  void closedStore_refusesUse_andCloseTwiceIsSafe() {
    FeatureStore store = FeatureStore.openLocal(dir);
    store.close();
    store.close();
    assertThatThrownBy(() -> store.listTables())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot use feature store: it is closed");
  }

  @Test
  void builder_withoutRoot_fails() {
    assertThatThrownBy(() -> FeatureStore.builder().build())
        .isInstanceOf(InvalidStateException.class)
        .hasMessageStartingWith("Cannot configure feature store");
  }

  @Test
  void toBuilder_derivesVariant() {
    var config = FeatureStore.builder().root(dir).commitRetries(7).config();
    var derived = config.toBuilder().commitRetries(9).config();
    assertThat(config.commitRetries()).isEqualTo(7);
    assertThat(derived.commitRetries()).isEqualTo(9);
    assertThat(derived.root()).contains(dir);
    assertThat(List.of(config.toString())).allMatch(s -> s.contains("commitRetries=7"));
    assertThat(Files.exists(dir.resolve("catalog.db"))).isFalse();
  }
}
