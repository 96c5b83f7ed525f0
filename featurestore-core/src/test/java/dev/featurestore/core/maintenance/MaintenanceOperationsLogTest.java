package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceRun;
import dev.featurestore.MetadataTable;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.HandClock;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every maintenance run is in the operations log, with the store's actor, the snapshot it made and
 * what it changed: compaction, manifest rewrite, expiry and orphan removal by hand, a planned run,
 * and a background run.
 */
class MaintenanceOperationsLogTest {
  @TempDir Path dir;
  private final HandClock clock = HandClock.aheadOfSystem();

  @Test
  void maintenanceRuns_byHandPlannedAndInTheBackground_areRecordedWithWhatTheyChanged() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir).clock(clock).actor("maintainer@ops").build()) {
      FeatureTable events = TestTables.createEvents(store, false);
      for (int i = 0; i < 4; i++) {
        appendRows(events, i * 10L, 10);
      }
      CompactionResult compacted = events.maintenance().compact().execute();
      RewriteManifestsResult manifests = events.maintenance().rewriteManifests();
      ExpireResult expired = events.maintenance().expireSnapshots().retainLast(1).execute();
      String stray = events.location() + "/data/stray.parquet";
      try (OutputStream out = store.unwrap(FileIO.class).newOutputFile(stray).create()) {
        out.write(new byte[] {1, 2, 3});
      }
      clock.advance(OrphanFileRemoval.DEFAULT_SAFETY_WINDOW.plusMinutes(1));
      assertThat(events.maintenance().removeOrphanFiles().execute().candidates()).hasSize(1);

      MaintenancePolicy policy = MaintenancePolicy.builder().checkEvery(Duration.ofHours(1)).leaseDuration(Duration.ofHours(2))
          .removeOrphans(false).compactWhenSmallFilesAtLeast(5).build();
      for (int i = 0; i < 5; i++) {
        appendRows(events, 100L + i * 10, 10);
      }
      events.maintenance().plan(policy).execute();
      for (int i = 0; i < 5; i++) {
        appendRows(events, 200L + i * 10, 10);
      }
      try (BackgroundMaintenance background = events.maintenance().background(policy)) {
        MaintenanceRun run = ((BackgroundMaintainer) background).check();
        assertThat(run.outcome()).as(run.message()).isEqualTo(MaintenanceRun.Outcome.DONE);
      }

      List<Map<String, Object>> log = events.metadata(MetadataTable.OPERATIONS).toList().stream()
          .filter(r -> !r.get("operation").equals("create_table")).toList();
      assertThat(log).extracting(r -> r.get("operation")).containsExactly("compact", "rewrite_manifests",
          "expire_snapshots", "remove_orphan_files", "compact", "maintenance_plan", "compact", "maintenance_plan");
      assertThat(log).extracting(r -> r.get("actor")).containsOnly("maintainer@ops");
      assertThat(log).extracting(r -> r.get("table_name")).containsOnly(events.id().toString());
      assertThat(log.get(0).get("snapshot_id")).isEqualTo(compacted.snapshotId().getAsLong());
      assertThat((String) log.get(0).get("details")).contains("\"rewritten_files\":4").contains("\"added_files\":1")
          .contains("\"rows\":40");
      assertThat(log.get(1).get("snapshot_id")).isEqualTo(manifests.snapshotId().getAsLong());
      assertThat((String) log.get(1).get("details")).contains("\"manifests_before\":" + manifests.manifestsBefore());
      assertThat((String) log.get(2).get("details"))
          .contains("\"expired_snapshot_ids\":" + expired.expiredSnapshotIds().toString().replace(" ", ""));
      assertThat((String) log.get(3).get("details")).contains("\"deleted_files\":1").contains("\"bytes\":3");
      // a JSON object's members in any order
      assertThat((String) log.get(5).get("details")).contains("\"steps\":[\"compact\"]").contains("\"background\":false");
      assertThat((String) log.get(7).get("details")).contains("\"steps\":[\"compact\"]").contains("\"background\":true");
    }
  }
}
