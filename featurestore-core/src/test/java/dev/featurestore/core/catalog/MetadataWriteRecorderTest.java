package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's FileIO wrapper takes bulk deletes, so Iceberg deletes the metadata files that fall
 * off the metadata log on the committing thread, not on its worker pool behind 10 ms polling sleeps.
 */
class MetadataWriteRecorderTest {
  @TempDir Path dir;

  @Test
  void metadataFilesOffTheLog_areDeletedAfterCommits() throws IOException {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
          .properties(Map.of(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
              TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2"))
          .build());
      for (int i = 1; i <= 6; i++) {
        table.ingest().synthetic(5, i).commit();
      }
      Path location = Path.of(java.net.URI.create(table.unwrap(org.apache.iceberg.Table.class).location()
          .replaceFirst("^/", "file:/")));
      try (Stream<Path> files = Files.list(location.resolve("metadata"))) {
        // the current file and the two on its log; the four before them deleted (the v<N> files
        // are the version-hint copies, kept apart)
        assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{5}-.*\\.metadata\\.json")))
            .hasSize(3).allMatch(n -> n.startsWith("00004-") || n.startsWith("00005-") || n.startsWith("00006-"));
      }
    }
  }

  @Test
  void bulkDelete_forwardsToTheStoreFileIOsBulkDelete() throws IOException {
    Path a = Files.writeString(dir.resolve("a"), "a");
    Path b = Files.writeString(dir.resolve("b"), "b");
    try (LocalFileIO local = new LocalFileIO()) {
      FileIO io = new MetadataWriteRecorder(local);
      assertThat(io).isInstanceOf(SupportsBulkOperations.class);
      ((SupportsBulkOperations) io).deleteFiles(List.of(a.toString(), b.toString()));
    }
    assertThat(a).doesNotExist();
    assertThat(b).doesNotExist();
  }

  @Test
  void bulkDelete_withoutBulkSupport_deletesEachFile_andCountsFailures() {
    List<String> deleted = new ArrayList<>();
    FileIO single = new FileIO() {
      @Override
      public InputFile newInputFile(String path) {
        throw new UnsupportedOperationException();
      }

      @Override
      public OutputFile newOutputFile(String path) {
        throw new UnsupportedOperationException();
      }

      @Override
      public void deleteFile(String path) {
        if (path.equals("bad")) {
          throw new IllegalStateException("cannot delete");
        }
        deleted.add(path);
      }
    };
    SupportsBulkOperations io = new MetadataWriteRecorder(single);
    assertThatThrownBy(() -> io.deleteFiles(List.of("x", "bad", "y")))
        .isInstanceOf(BulkDeletionFailureException.class)
        .satisfies(e -> assertThat(((BulkDeletionFailureException) e).numberFailedObjects()).isEqualTo(1));
    assertThat(deleted).containsExactly("x", "y");
  }
}
