package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.StorageException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoverCatalogTest {
  private static final TableId OTHER = TableId.of("labels", "clicks");

  @TempDir Path dir;

  private static void appendRows(FeatureTable table, long first, int count) {
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(TestTables.event(table, first + i, "2026-01-01T00:00:00Z", 1.0, 1.0));
    }
    TestTables.append(table, rows);
  }

  private static void deleteCatalog(Path dir) throws Exception {
    for (String suffix : List.of("", "-wal", "-shm")) {
      Files.deleteIfExists(dir.resolve("catalog.db" + suffix));
    }
  }

  @Test
  void recover_afterCatalogDeleted_allTablesAndSnapshotsIntact() throws Exception {
    List<SnapshotInfo> eventsHistory;
    List<SnapshotInfo> otherHistory;
    Map<String, Long> refs;
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable events = TestTables.createEvents(store, true);
      appendRows(events, 0, 10);
      appendRows(events, 10, 10);
      events.snapshots().createTag("v1", events.snapshots().history().get(0).snapshotId());
      appendRows(events, 20, 10);
      FeatureTable other = store.createTable(TableDefinition.builder(OTHER, SyntheticFeatures.schema()).build());
      appendRows(other, 0, 5);
      eventsHistory = events.snapshots().history();
      otherHistory = other.snapshots().history();
      refs = events.snapshots().refs();
    }
    deleteCatalog(dir);

    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      assertThat(store.listTables()).isEmpty();

      CatalogRecoveryResult result = store.recoverCatalog();

      assertThat(result.registered()).containsExactly(SyntheticFeatures.TABLE_ID, OTHER);
      assertThat(result.alreadyRegistered()).isEmpty();
      assertThat(store.listTables()).containsExactlyInAnyOrder(SyntheticFeatures.TABLE_ID, OTHER);
      FeatureTable events = store.table(SyntheticFeatures.TABLE_ID);
      assertThat(events.snapshots().history()).isEqualTo(eventsHistory);
      assertThat(events.snapshots().refs()).isEqualTo(refs);
      for (SnapshotInfo s : eventsHistory) {
        assertThat(events.query().asOfSnapshot(s.snapshotId()).count()).isEqualTo(s.totalRows());
      }
      assertThat(events.query().atRef("v1").count()).isEqualTo(10);
      assertThat(store.table(OTHER).snapshots().history()).isEqualTo(otherHistory);
      assertThat(store.table(OTHER).query().count()).isEqualTo(5);
      // commits continue from the recovered metadata
      appendRows(events, 100, 1);
      assertThat(events.query().count()).isEqualTo(31);

      assertThat(store.recoverCatalog().alreadyRegistered()).containsExactly(SyntheticFeatures.TABLE_ID, OTHER);
    }
  }

  @Test
  void recover_picksTheHighestMetadataVersion() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable events = TestTables.createEvents(store, false);
      for (int i = 0; i < 12; i++) {
        appendRows(events, i, 1); // 13 metadata versions: 00000 .. 00012, sorted numerically
      }
    }
    deleteCatalog(dir);

    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      CatalogRecoveryResult result = store.recoverCatalog();

      assertThat(result.metadataLocations()).singleElement().asString().contains("/metadata/00012-");
      assertThat(store.table(SyntheticFeatures.TABLE_ID).query().count()).isEqualTo(12);
    }
  }

  @Test
  void recover_newestMetadataFileEmptyOrHalfWritten_skipsAndNamesIt_registersTheNewestReadable() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable events = TestTables.createEvents(store, false);
      appendRows(events, 0, 3);
      appendRows(events, 3, 4); // versions 00000 .. 00002
    }
    deleteCatalog(dir);
    Path metadata = dir.resolve("warehouse/features/feature_events/metadata");
    // a commit killed while writing its metadata file: once at 0 bytes, once cut off mid-JSON
    Path empty = Files.createFile(metadata.resolve("00003-0b5a1a2e-9f7e-4c1e-8d3b-2f4c5d6e7f80.metadata.json"));
    Path half = metadata.resolve("00004-1c6b2b3f-a08f-4d2f-9e4c-3a5d6e7f8091.metadata.json");
    Files.writeString(half, "{\"format-version\" : 2, \"table-uuid\" : \"");

    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      CatalogRecoveryResult result = store.recoverCatalog();

      assertThat(result.registered()).containsExactly(SyntheticFeatures.TABLE_ID);
      assertThat(result.metadataLocations()).singleElement().asString().contains("/metadata/00002-");
      assertThat(result.unreadableMetadata()).containsExactly(empty.toString(), half.toString());
      assertThat(store.table(SyntheticFeatures.TABLE_ID).query().count()).isEqualTo(7);
    }
  }

  @Test
  void recover_tableWithOnlyAnEmptyMetadataFile_isNotRegistered_andCanBeCreatedAgain() throws Exception {
    Path metadata = Files.createDirectories(dir.resolve("warehouse/features/feature_events/metadata"));
    Path empty = Files.createFile(metadata.resolve("00000-2d7c3c40-b19f-4e3f-8f5d-4b6e7f8091a2.metadata.json"));

    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      CatalogRecoveryResult result = store.recoverCatalog();

      assertThat(result.registered()).isEmpty();
      assertThat(result.unreadableMetadata()).containsExactly(empty.toString());
      FeatureTable events = TestTables.createEvents(store, false);
      appendRows(events, 0, 2);
      assertThat(events.query().count()).isEqualTo(2);
      assertThat(empty).doesNotExist();
    }
  }

  @Test
  void open_garbageCatalogFile_failsNamingTheFile() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      appendRows(TestTables.createEvents(store, false), 0, 3);
    }
    deleteCatalog(dir);
    Path catalog = dir.resolve("catalog.db");
    Files.writeString(catalog, "this is not a database, it is garbage ".repeat(200));

    assertThatThrownBy(() -> FeatureStore.openLocal(dir))
        .isInstanceOf(StorageException.class)
        .hasMessage("Cannot open catalog: file is not a valid SQLite database: " + catalog.toAbsolutePath()
            + ": recover with: move it aside (with its -wal and -shm files), open the store and call recoverCatalog()");

    Files.move(catalog, dir.resolve("catalog.db.damaged"));
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      assertThat(store.recoverCatalog().registered()).containsExactly(SyntheticFeatures.TABLE_ID);
      assertThat(store.table(SyntheticFeatures.TABLE_ID).query().count()).isEqualTo(3);
    }
  }

  @Test
  void open_catalogWithValidHeaderButCorruptPages_failsNamingTheFile() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      TestTables.createEvents(store, false);
    }
    Path catalog = dir.resolve("catalog.db");
    Files.deleteIfExists(dir.resolve("catalog.db-wal"));
    Files.deleteIfExists(dir.resolve("catalog.db-shm"));
    byte[] bytes = Files.readAllBytes(catalog);
    for (int i = 100; i < bytes.length; i++) {
      bytes[i] = (byte) 0xA5;
    }
    Files.write(catalog, bytes);

    assertThatThrownBy(() -> FeatureStore.openLocal(dir))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot open catalog: file is not a valid SQLite database: " + catalog.toAbsolutePath());
  }
}
