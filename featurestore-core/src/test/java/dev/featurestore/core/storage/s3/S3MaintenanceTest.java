package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.core.TestClock;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Compaction, expiry, orphan removal and catalog recovery with the tables in a B2 bucket. */
class S3MaintenanceTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;
  static final TableId RECOVERED = TableId.of("recovery", "events");

  private final TestClock clock = new TestClock();

  private FeatureStore open() {
    return FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).clock(clock).build();
  }

  @Test
  void compactExpireAndRemoveOrphans_onTheBucket_keepEveryRow() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      for (int i = 0; i < 6; i++) {
        table.ingest().synthetic(200, i).commit();
      }
      assertThat(table.stats().dataFiles()).isEqualTo(6);

      CompactionResult compacted = table.maintenance().compact().execute();
      assertThat(compacted.rewrittenDataFiles()).isEqualTo(6);
      assertThat(compacted.addedDataFiles()).isEqualTo(1);
      assertThat(table.query().count()).isEqualTo(1_200);

      ExpireResult expired = table.maintenance().expireSnapshots().retainLast(1).execute();
      assertThat(expired.expiredSnapshots()).isEqualTo(6);
      assertThat(expired.deletedDataFiles()).isEqualTo(6);
      assertThat(expired.bytesFreed()).isPositive();
      assertThat(table.snapshots().history()).hasSize(1);
      assertThat(table.query().count()).isEqualTo(1_200);
      assertThat(s3.keys("warehouse/features/feature_events/data/")).hasSize(1);

      // a stray object under the table: found by a dry run, deleted by execute
      String stray = table.location() + "/data/stray.parquet";
      try (OutputStream out = store.unwrap(FileIO.class).newOutputFile(stray).create()) {
        out.write(new byte[] {1, 2, 3});
      }
      // young under the default window; old once the store's clock moves past it (no sleep: S3
      // modification times are whole seconds, the default window is days)
      assertThat(table.maintenance().removeOrphanFiles().dryRun().candidates()).isEmpty();
      clock.advance(OrphanFileRemoval.DEFAULT_SAFETY_WINDOW.plusMinutes(1));
      assertThat(table.maintenance().removeOrphanFiles().dryRun().candidates())
          .extracting(OrphanFilesResult.OrphanFile::location).containsExactly(stray);
      OrphanFilesResult dryRun = table.maintenance().removeOrphanFiles()
          .olderThan(Duration.ofSeconds(1)).unsafe().dryRun();
      assertThat(dryRun.candidates()).extracting(OrphanFilesResult.OrphanFile::location).containsExactly(stray);
      assertThat(dryRun.deleted()).isFalse();
      table.maintenance().removeOrphanFiles().olderThan(Duration.ofSeconds(1)).unsafe().execute();
      assertThat(s3.keys("warehouse/features/feature_events/data/")).hasSize(1);
      assertThat(table.query().count()).isEqualTo(1_200);
    }
    assertThat(s3.gate().refusals()).isEmpty();
  }

  @Test
  void lostCatalog_isRecoveredFromTheBucket_withEverySnapshot() throws Exception {
    List<SnapshotInfo> before;
    try (FeatureStore store = open()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(RECOVERED, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();
      table.ingest().synthetic(50, 2).commit();
      before = table.snapshots().history();
    }
    for (String name : List.of("catalog.db", "catalog.db-wal", "catalog.db-shm")) {
      Files.deleteIfExists(root.resolve(name));
    }
    try (FeatureStore store = open()) {
      assertThat(store.listTables()).isEmpty();
      CatalogRecoveryResult recovered = store.recoverCatalog();
      assertThat(recovered.registered()).contains(RECOVERED);
      FeatureTable table = store.table(RECOVERED);
      assertThat(table.snapshots().history()).extracting(SnapshotInfo::snapshotId)
          .containsExactlyElementsOf(before.stream().map(SnapshotInfo::snapshotId).toList());
      assertThat(table.query().count()).isEqualTo(150);
      assertThat(table.query().asOfSnapshot(before.get(0).snapshotId()).count()).isEqualTo(100);
      // the bucket still holds the table: creating it again elsewhere in the catalog is refused
      store.dropTable(RECOVERED, false);
      assertThatThrownBy(() -> store.createTable(TableDefinition.builder(RECOVERED, SyntheticFeatures.schema()).build()))
          .isInstanceOf(dev.featurestore.AlreadyExistsException.class)
          .hasMessageContaining("its location already holds table metadata");
    }
  }
}
