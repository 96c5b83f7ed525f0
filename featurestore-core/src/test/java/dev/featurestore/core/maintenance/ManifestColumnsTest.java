package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.query.DiffTables;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;

/**
 * The columns expiry reads from manifest lists and manifests equal what Iceberg's own readers
 * return, for data manifests, position and equality delete manifests, manifests with deleted
 * entries and v3 deletion vectors; files in a codec it does not decode itself go to Iceberg's
 * readers with the same result.
 */
class ManifestColumnsTest extends LocalStoreTest {
  @Test
  void v2Table_withDeletes_readsWhatIcebergReads_withoutIcebergsReaders() {
    FeatureTable table = TestTables.createEvents(store, false);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.addAll(appendRows(table, i * 10L, 10));
    }
    TestTables.positionDelete(table, files.get(1), 0, 3);
    TestTables.equalityDelete(table, "entity_id", 25L, 26L);
    iceberg(table).newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).commit();
    appendRows(table, 100, 10);

    ManifestColumns columns = assertSameAsIceberg(table);

    assertThat(columns.readByIceberg()).isZero();
  }

  @Test
  void v3Table_withDeletionVectors_readsWhatIcebergReads() {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("features", "v3"),
        SyntheticFeatures.schema()).formatVersion(3).build());
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      files.addAll(appendRows(table, i * 10L, 10));
    }
    DiffTables.deletionVector(table, files.get(0), 1, 2);
    DiffTables.deletionVector(table, files.get(2), 5);

    ManifestColumns columns = assertSameAsIceberg(table);

    assertThat(columns.readByIceberg()).isZero();
  }

  @Test
  void zstdManifests_areReadWithIcebergsReaders_withTheSameResult() {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("features", "zstd"),
        SyntheticFeatures.schema()).property("write.manifest.compression-codec", "zstd").build());
    List<DataFile> files = appendRows(table, 0, 10);
    appendRows(table, 10, 10);
    TestTables.positionDelete(table, files.get(0), 0);

    ManifestColumns columns = assertSameAsIceberg(table);

    assertThat(columns.readByIceberg()).isPositive();
  }

  @Test
  void truncatedManifestList_fails() throws IOException {
    FeatureTable table = TestTables.createEvents(store, false);
    appendRows(table, 0, 10);
    Snapshot snapshot = iceberg(table).currentSnapshot();
    Path list = Path.of(snapshot.manifestListLocation().replaceFirst("^file:", ""));
    byte[] bytes = Files.readAllBytes(list);
    Files.write(list, java.util.Arrays.copyOf(bytes, bytes.length - 20));
    ManifestColumns columns = new ManifestColumns(iceberg(table).io(), iceberg(table).specs());

    assertThatThrownBy(() -> columns.manifests(snapshot))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("Cannot read Avro file: " + snapshot.manifestListLocation())
        .hasCauseInstanceOf(java.io.EOFException.class);
  }

  private static Table iceberg(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    return iceberg;
  }

  /** Every snapshot's manifests and every manifest's live entries, compared with Iceberg's readers. */
  private static ManifestColumns assertSameAsIceberg(FeatureTable featureTable) {
    Table table = iceberg(featureTable);
    ManifestColumns columns = new ManifestColumns(table.io(), table.specs());
    int manifests = 0;
    boolean sawDeleteManifest = false;
    for (Snapshot snapshot : table.snapshots()) {
      List<ManifestFile> ours = columns.manifests(snapshot);
      List<ManifestFile> theirs = snapshot.allManifests(table.io());
      assertThat(ours).hasSameSizeAs(theirs);
      for (int i = 0; i < ours.size(); i++) {
        ManifestFile a = ours.get(i);
        ManifestFile b = theirs.get(i);
        assertThat(List.of(a.path(), a.length(), a.partitionSpecId(), a.content(), a.snapshotId(),
            a.addedFilesCount(), a.existingFilesCount(), a.deletedFilesCount(), a.sequenceNumber(),
            a.minSequenceNumber()))
            .isEqualTo(List.of(b.path(), b.length(), b.partitionSpecId(), b.content(), b.snapshotId(),
                b.addedFilesCount(), b.existingFilesCount(), b.deletedFilesCount(), b.sequenceNumber(),
                b.minSequenceNumber()));
        assertThat(live(columns, a)).isEqualTo(liveByIceberg(table, b));
        sawDeleteManifest |= a.content() == ManifestContent.DELETES;
        manifests++;
      }
    }
    assertThat(manifests).isGreaterThan(3);
    assertThat(sawDeleteManifest).isTrue();
    return columns;
  }

  private static List<String> live(ManifestColumns columns, ManifestFile manifest) {
    List<String> entries = new ArrayList<>();
    columns.liveEntries(manifest, (location, content, size) -> entries.add(location + " " + content + " " + size));
    entries.sort(Comparator.naturalOrder());
    return entries;
  }

  private static List<String> liveByIceberg(Table table, ManifestFile manifest) {
    List<String> entries = new ArrayList<>();
    try (ManifestReader<? extends ContentFile<?>> reader = manifest.content() == ManifestContent.DATA
        ? ManifestFiles.read(manifest, table.io(), table.specs())
        : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
      for (ContentFile<?> file : reader) {
        entries.add(file.location() + " " + file.content() + " " + file.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    entries.sort(Comparator.naturalOrder());
    return entries;
  }
}
