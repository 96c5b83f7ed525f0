package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real process death in the middle of a create: a child JVM ({@link CreateCrashChild}) is killed
 * with SIGKILL when the create's first metadata file has appeared, left at 0 bytes or complete,
 * and before the catalog row was inserted. The store opened again must not be stuck: creating the
 * table again completes or starts over, and recovery skips and names an unreadable file.
 */
class CreateCrashTest {
  @TempDir Path root;

  private static TableDefinition definition() {
    return TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build();
  }

  /** Runs the child until it pauses at the first metadata file, kills it; the file's path. */
  private Path killAtFirstMetadataFile(String point) throws Exception {
    try (ChildJvm child = ChildJvm.start(CreateCrashChild.class, root, root.resolve("store").toString(), point)) {
      String paused = child.await("PAUSED ", Duration.ofSeconds(90)).orElseThrow(
          () -> new AssertionError("child did not pause: " + child.lines()));
      child.kill();
      Path file = LocalFileIO.toPath(paused.substring("PAUSED ".length()));
      assertThat(file).exists();
      if (point.equals("empty")) {
        assertThat(file).isEmptyFile();
      } else {
        assertThat(Files.size(file)).isPositive();
      }
      return file;
    }
  }

  private static List<Path> metadataFiles(Path store) throws Exception {
    Path folder = store.resolve("warehouse/features/feature_events/metadata");
    try (Stream<Path> files = Files.list(folder)) {
      // the catalog's files, not the v<N>.metadata.json copies for path-based readers (VersionHint)
      return files.filter(f -> f.getFileName().toString().endsWith(".metadata.json")
          && !VersionHint.isCopy(f.getFileName().toString())).sorted().toList();
    }
  }

  private static String metadataLocation(FeatureTable table) {
    return ((HasTableOperations) table.unwrap(Table.class)).operations().current().metadataFileLocation();
  }

  @ParameterizedTest(name = "first metadata file {0}")
  @ValueSource(strings = {"empty", "complete"})
  void createKilledAtFirstMetadataFile_createAgain_completesOrStartsOver(String point) throws Exception {
    Path crashed = killAtFirstMetadataFile(point);
    Path store = root.resolve("store");
    try (FeatureStore reopened = FeatureStore.openLocal(store)) {
      assertThat(reopened.tableExists(SyntheticFeatures.TABLE_ID)).isFalse();
      FeatureTable table = reopened.createTable(definition());
      if (point.equals("complete")) {
        // the interrupted create completed: its file is the table's first metadata
        assertThat(LocalFileIO.toPath(metadataLocation(table))).isEqualTo(crashed);
      } else {
        assertThat(crashed).doesNotExist(); // started over, and the empty file is gone
      }
      assertThat(metadataFiles(store)).hasSize(1).allSatisfy(f -> assertThat(Files.size(f)).isPositive());
      table.ingest().synthetic(10, 1).commit();
      assertThat(table.query().count()).isEqualTo(10);
    }
    try (FeatureStore again = FeatureStore.openLocal(store)) {
      assertThat(again.table(SyntheticFeatures.TABLE_ID).query().count()).isEqualTo(10);
    }
  }

  @ParameterizedTest(name = "first metadata file {0}")
  @ValueSource(strings = {"empty", "complete"})
  void createKilledAtFirstMetadataFile_recoverCatalog_registersOrSkipsAndNames(String point) throws Exception {
    Path crashed = killAtFirstMetadataFile(point);
    try (FeatureStore reopened = FeatureStore.openLocal(root.resolve("store"))) {
      CatalogRecoveryResult result = reopened.recoverCatalog();
      if (point.equals("complete")) {
        assertThat(result.registered()).containsExactly(SyntheticFeatures.TABLE_ID);
        assertThat(result.unreadableMetadata()).isEmpty();
      } else {
        assertThat(result.registered()).isEmpty();
        assertThat(result.unreadableMetadata()).singleElement()
            .satisfies(location -> assertThat(location).endsWith(crashed.toString()));
        assertThat(reopened.tableExists(SyntheticFeatures.TABLE_ID)).isFalse();
      }
      // either way the table can be used (again): recovered, or created over the empty file
      FeatureTable table = reopened.findTable(SyntheticFeatures.TABLE_ID)
          .orElseGet(() -> reopened.createTable(definition()));
      table.ingest().synthetic(5, 2).commit();
      assertThat(table.query().count()).isEqualTo(5);
    }
  }
}
