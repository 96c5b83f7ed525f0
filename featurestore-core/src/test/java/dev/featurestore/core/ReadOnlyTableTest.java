package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MetadataTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Tables opened from their metadata alone: the version the file names, read-only. */
class ReadOnlyTableTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  private static String metadataLocation(FeatureTable table) {
    return ((HasTableOperations) table.unwrap(Table.class)).operations().current().metadataFileLocation();
  }

  @Test
  void olderMetadataFile_readsThatVersion_withMetadataTables() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      long first = table.ingest().synthetic(100, 1).commit().snapshotId().getAsLong();
      String old = metadataLocation(table);
      table.ingest().synthetic(50, 2).commit();
      table.evolveSchema().addColumn("extra", Types.LongType.get(), null).commit();

      FeatureTable readOnly = store.openReadOnly(old);

      assertThat(readOnly.isReadOnly()).isTrue();
      assertThat(table.isReadOnly()).isFalse();
      assertThat(readOnly.id()).isEqualTo(SyntheticFeatures.TABLE_ID);
      assertThat(readOnly.query().count()).isEqualTo(100);
      assertThat(readOnly.snapshots().current().orElseThrow().snapshotId()).isEqualTo(first);
      assertThat(readOnly.schema().findField("extra")).isNull();
      assertThat(readOnly.metadata(MetadataTable.SNAPSHOTS).toList()).hasSize(1);
      readOnly.refresh();
      assertThat(readOnly.query().count()).isEqualTo(100); // fixed at its version
      assertThat(table.query().count()).isEqualTo(150);
    }
  }

  @Test
  void tableLocation_readsTheVersionHint() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();
      table.ingest().synthetic(50, 2).commit();
      FeatureTable readOnly = store.openReadOnly(table.location() + "/");
      assertThat(readOnly.query().count()).isEqualTo(150);
      assertThat(readOnly.snapshots().current()).isEqualTo(table.snapshots().current());
    }
  }

  @Test
  void everyWrite_isRefusedTyped_andWritesNothing() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      long first = table.ingest().synthetic(100, 1).commit().snapshotId().getAsLong();
      table.ingest().synthetic(10, 2).commit();
      FeatureTable ro = store.openReadOnly(metadataLocation(table));
      Path tableDir = Path.of(table.location());
      List<Path> before = files(tableDir);
      String suffix = ": table is read-only (opened from its metadata file): features.feature_events";

      List<Consumer<FeatureTable>> writes = List.of(
          t -> t.ingest(), t -> t.append(List.of()), t -> t.evolveSchema(), t -> t.evolvePartitionSpec(),
          t -> t.updateBloomFilters(), t -> t.maintenance(), t -> t.tiering());
      List<String> verbs = List.of("ingest into table features.feature_events", "ingest into table features.feature_events",
          "evolve schema of table features.feature_events", "evolve partition spec of table features.feature_events",
          "update bloom filters of table features.feature_events", "maintain table features.feature_events",
          "tier table features.feature_events");
      for (int i = 0; i < writes.size(); i++) {
        Consumer<FeatureTable> write = writes.get(i);
        assertThatThrownBy(() -> write.accept(ro)).isInstanceOf(InvalidStateException.class)
            .hasMessage("Cannot " + verbs.get(i) + suffix);
      }
      String commit = "Cannot commit to table features.feature_events" + suffix;
      assertThatThrownBy(() -> ro.snapshots().rollbackTo(first)).isInstanceOf(InvalidStateException.class).hasMessage(commit);
      assertThatThrownBy(() -> ro.snapshots().createTag("t", first)).isInstanceOf(InvalidStateException.class).hasMessage(commit);
      assertThatThrownBy(() -> ro.snapshots().removeBranch("b")).isInstanceOf(InvalidStateException.class).hasMessage(commit);
      assertThatThrownBy(() -> ro.snapshots().setMaxRefAge("x", Duration.ofDays(1))).isInstanceOf(InvalidStateException.class)
          .hasMessage(commit);

      assertThat(files(tableDir)).isEqualTo(before);
      assertThat(table.snapshots().refs()).containsOnlyKeys("main");
      assertThat(table.query().count()).isEqualTo(110);
    }
  }

  private static List<Path> files(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.sorted().toList();
    }
  }

  @Test
  void missingGarbageAndHostileLocations_areRefusedTyped() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      Path garbage = dir.resolve("00001-x.metadata.json");
      Files.writeString(garbage, "{\"not\": \"metadata\"");
      assertThatThrownBy(() -> store.openReadOnly(dir.resolve("nope/00001-x.metadata.json").toString()))
          .isInstanceOf(NotFoundException.class)
          .hasMessage("Cannot open table read-only: no metadata file: " + dir.resolve("nope/00001-x.metadata.json"));
      assertThatThrownBy(() -> store.openReadOnly(dir.resolve("nope").toString()))
          .isInstanceOf(NotFoundException.class)
          .hasMessage("Cannot open table read-only: not a metadata file and no version-hint.text under its metadata folder: "
              + dir.resolve("nope"));
      assertThatThrownBy(() -> store.openReadOnly(garbage.toString())).isInstanceOf(InvalidDataException.class)
          .hasMessage("Cannot open table read-only: not table metadata (empty, truncated or not JSON): " + garbage);
      assertThatThrownBy(() -> store.openReadOnly(" ")).isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot open table read-only: location is blank: ' '");
      assertThatThrownBy(() -> store.openReadOnly("a\0b.metadata.json")).isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot open table read-only: control characters in location: 'a\\u0000b.metadata.json'");
      assertThatThrownBy(() -> store.openReadOnly(null)).isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot open table read-only: location is null: null");
      // a hint that tries to leave the metadata folder
      Path table = dir.resolve("t");
      Files.createDirectories(table.resolve("metadata"));
      Files.writeString(table.resolve("metadata/version-hint.text"), "../../secret");
      assertThatThrownBy(() -> store.openReadOnly(table.toString())).isInstanceOf(InvalidDataException.class)
          .hasMessageStartingWith("Cannot open table read-only: version hint is not a version or a metadata file name: ");
    }
  }

  @Test
  void bucketKey_opensFromTheStoresBucket_andHostileKeysAreRefused() {
    try (FeatureStore store = FeatureStore.builder().root(dir).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(20, 1).commit();
      String location = metadataLocation(table);
      String key = location.substring(location.indexOf("warehouse/"));

      assertThat(store.openReadOnly(key).query().count()).isEqualTo(20);
      assertThat(store.openReadOnly("warehouse/features/feature_events").query().count()).isEqualTo(20);
      assertThatThrownBy(() -> store.openReadOnly("../other-bucket/x.metadata.json"))
          .isInstanceOf(InvalidArgumentException.class).hasMessageStartingWith("Cannot use object key: ");
      assertThatThrownBy(() -> store.openReadOnly("warehouse/features/missing/metadata/00001-a.metadata.json"))
          .isInstanceOf(NotFoundException.class);
    }
  }
}
