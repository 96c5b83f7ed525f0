package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureTable;
import dev.featurestore.MetadataTable;
import dev.featurestore.StorageException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Expiry when storage cannot read a manifest list or manifest (corrupted or deleted on disk). One of
 * a remaining snapshot leaves the reachable set unknown: the expiry fails with a
 * {@link StorageException} before it commits, and the table is exactly as it was (every snapshot,
 * the same metadata file, every file). One only expired snapshots list
 * can only hide candidates: the files only it references stay (orphans), everything else is
 * deleted, and the operations log names it.
 *
 * <p>The table: five appends (file i in manifest i, snapshot i), then one delete of files 0 and 1
 * (snapshot 6). Expiring all but the last makes files 0 and 1 unreachable: they are found in
 * manifests 0 and 1 (listed only by expired snapshots) and checked against manifests 2-4 (listed by
 * snapshot 6 too).
 */
class ExpireUnreadableMetadataTest extends LocalStoreTest {
  private FeatureTable events;
  private final List<Snapshot> appends = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();
  /** The manifest each append added, by append. */
  private final List<String> manifests = new ArrayList<>();

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
    for (int i = 0; i < 5; i++) {
      files.addAll(appendRows(events, i * 10L, 10));
      Snapshot snapshot = iceberg().currentSnapshot();
      appends.add(snapshot);
      manifests.add(snapshot.allManifests(iceberg().io()).stream()
          .filter(m -> m.snapshotId() == snapshot.snapshotId()).map(ManifestFile::path).findFirst().orElseThrow());
      TestTables.tick();
    }
    iceberg().newDelete().deleteFile(files.get(0)).deleteFile(files.get(1)).commit();
  }

  @Test
  void aRemainingSnapshotsManifest_corrupted_failsTyped_withTheTableUnchanged_andExpiresOnceItReads()
      throws Exception {
    byte[] good = Files.readAllBytes(path(manifests.get(3)));
    corrupt(manifests.get(3));
    assertRemainingUnreadable(manifests.get(3));

    Files.write(path(manifests.get(3)), good);
    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();
    assertThat(result.expiredSnapshotIds()).isEqualTo(appends.stream().map(Snapshot::snapshotId).toList());
    assertThat(result.deletedDataFiles()).isEqualTo(2);
    assertThat(events.query().count()).isEqualTo(30);
  }

  @Test
  void aRemainingSnapshotsManifest_missing_failsTyped_withTheTableUnchanged() throws Exception {
    Files.delete(path(manifests.get(2)));
    assertRemainingUnreadable(manifests.get(2));
  }

  @Test
  void theRemainingSnapshotsManifestList_corrupted_failsTyped_withTheTableUnchanged() throws Exception {
    String list = iceberg().currentSnapshot().manifestListLocation();
    corrupt(list);
    assertRemainingUnreadable(list);
  }

  @Test
  void anExpiredOnlyManifest_corrupted_leavesItsFiles_deletesTheRest_andLogsIt() throws Exception {
    corrupt(manifests.get(0));

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();

    assertThat(result.expiredSnapshots()).isEqualTo(5);
    assertThat(result.deletedDataFiles()).as("file 1 only: file 0 is known from manifest 0 alone").isEqualTo(1);
    assertThat(exists(files.get(0).location())).as("left on storage: an orphan").isTrue();
    assertThat(exists(files.get(1).location())).isFalse();
    assertThat(appends).extracting(Snapshot::manifestListLocation).noneMatch(MaintenanceTestData::exists);
    assertThat(lastExpiryDetails()).contains("\"unread_expired_metadata\":[\"" + manifests.get(0) + "\"]");
    assertThat(events.query().count()).isEqualTo(30);
  }

  @Test
  void anExpiredManifestList_corrupted_isReported_andItsManifestsAreStillFoundThroughLaterLists() throws Exception {
    corrupt(appends.get(0).manifestListLocation()); // lists manifest 0 only; snapshot 1 lists it too

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();

    assertThat(result.deletedDataFiles()).isEqualTo(2);
    assertThat(exists(files.get(0).location())).isFalse();
    assertThat(exists(files.get(1).location())).isFalse();
    assertThat(result.deletedManifestLists()).isEqualTo(5);
    assertThat(lastExpiryDetails())
        .contains("\"unread_expired_metadata\":[\"" + appends.get(0).manifestListLocation() + "\"]");
  }

  private void assertRemainingUnreadable(String location) {
    List<String> manifestLists = appends.stream().map(Snapshot::manifestListLocation).toList();
    List<Long> snapshotIds = snapshotIds();
    String metadataLocation = metadataLocation();
    assertThat(snapshotIds).hasSize(6);

    assertThatThrownBy(() -> events.maintenance().expireSnapshots().retainLast(1).execute())
        .isExactlyInstanceOf(StorageException.class)
        .hasMessage("Cannot expire snapshots of table " + events.id() + ": a metadata file of a remaining snapshot "
            + "cannot be read, so which files would still be reachable is unknown; nothing was expired or deleted: "
            + location);

    // nothing was committed: the same snapshots and metadata file; every file is still there
    assertThat(snapshotIds()).isEqualTo(snapshotIds);
    assertThat(metadataLocation()).isEqualTo(metadataLocation);
    assertThat(events.snapshots().history()).hasSize(6);
    for (DataFile file : files) {
      assertThat(exists(file.location())).as(file.location()).isTrue();
    }
    for (String manifest : manifests) {
      assertThat(manifest.equals(location) || exists(manifest)).as(manifest).isTrue();
    }
    assertThat(manifestLists).allMatch(MaintenanceTestData::exists);
    assertThat(expiryLog()).as("no expiry happened").isEmpty();
  }

  private List<Long> snapshotIds() {
    return ((HasTableOperations) iceberg()).operations().current().snapshots().stream().map(Snapshot::snapshotId)
        .toList();
  }

  private String metadataLocation() {
    return ((HasTableOperations) iceberg()).operations().current().metadataFileLocation();
  }

  private List<Map<String, Object>> expiryLog() {
    return events.metadata(MetadataTable.OPERATIONS).toList().stream()
        .filter(r -> r.get("operation").equals("expire_snapshots")).toList();
  }

  private String lastExpiryDetails() {
    List<Map<String, Object>> log = expiryLog();
    assertThat(log).hasSize(1);
    return (String) log.get(0).get("details");
  }

  private Table iceberg() {
    Table table = events.unwrap(Table.class);
    table.refresh();
    return table;
  }

  private static Path path(String location) {
    return Path.of(location.startsWith("file:") ? URI.create(location).getPath() : location);
  }

  /** Overwrites the file with bytes that are not Avro. */
  private static void corrupt(String location) throws IOException {
    Files.write(path(location), new byte[] {'n', 'o', 't', ' ', 'a', 'v', 'r', 'o'});
  }
}
