package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenancePlan;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceProgress;
import dev.featurestore.MaintenanceProgress.Status;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceStep;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MaintenancePlanTest extends LocalStoreTest {
  private FeatureTable events;

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
  }

  @Test
  void plan_belowEveryThreshold_isEmpty() {
    appendRows(events, 0, 10);

    MaintenancePlan plan = events.maintenance().plan(MaintenancePolicy.defaults());

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.execute().steps()).isEmpty();
  }

  @Test
  void plan_maxSnapshotAge_isMeasuredByTheStoresClock() {
    dev.featurestore.core.TestClock clock = new dev.featurestore.core.TestClock();
    try (FeatureStore clocked = FeatureStore.builder().root(dir.resolve("clocked")).clock(clock).build()) {
      FeatureTable table = TestTables.createEvents(clocked, false);
      appendRows(table, 0, 10);
      appendRows(table, 10, 10);
      MaintenancePolicy policy = MaintenancePolicy.builder().expireWhenSnapshotsAtLeast(2).retainLastSnapshots(1)
          .maxSnapshotAge(Duration.ofDays(1)).removeOrphans(false).build();
      assertThat(table.maintenance().plan(policy).execute().expiry().orElseThrow().expiredSnapshots()).isZero();
      clock.advance(Duration.ofDays(2));
      assertThat(table.maintenance().plan(policy).execute().expiry().orElseThrow().expiredSnapshots()).isEqualTo(1);
    }
  }

  @Test
  void plan_maxSnapshots_expiresYoungSnapshotsBeyondTheCap_keepingTheNewest() throws InterruptedException {
    for (int i = 0; i < 12; i++) {
      appendRows(events, i * 10, 10);
      Thread.sleep(2); // distinct snapshot times: the cap counts by time
    }
    List<Long> newestFive = new ArrayList<>();
    org.apache.iceberg.Table table = events.unwrap(org.apache.iceberg.Table.class);
    table.refresh();
    for (org.apache.iceberg.Snapshot s = table.currentSnapshot(); newestFive.size() < 5; s = table.snapshot(s.parentId())) {
      newestFive.add(s.snapshotId());
    }
    int before = 0;
    for (org.apache.iceberg.Snapshot ignored : table.snapshots()) {
      before++;
    }
    MaintenancePolicy policy = MaintenancePolicy.builder().expireWhenSnapshotsAtLeast(2).retainLastSnapshots(2)
        .maxSnapshotAge(Duration.ofDays(1)).maxSnapshots(5).removeOrphans(false)
        .compactWhenSmallFilesAtLeast(100).rewriteManifestsWhenAtLeast(100).build(); // expiry alone

    MaintenanceReport report = events.maintenance().plan(policy).execute();

    assertThat(before).isGreaterThanOrEqualTo(12);
    assertThat(report.expiry().orElseThrow().expiredSnapshots()).as("all younger than a day").isEqualTo(before - 5);
    table.refresh();
    List<Long> left = new ArrayList<>();
    table.snapshots().forEach(s -> left.add(s.snapshotId()));
    assertThat(left).containsExactlyInAnyOrderElementsOf(newestFive);
    assertThat(events.query().count()).isEqualTo(120);
    assertThat(policy.toString()).contains("maxSnapshots=5");
    assertThat(MaintenancePolicy.defaults().maxSnapshots()).isEqualTo(Integer.MAX_VALUE);
    assertThat(MaintenancePolicy.streaming().maxSnapshots()).isEqualTo(200);
  }

  @Test
  @SuppressWarnings("deprecation")
  void plan_deprecatedRunWithListener_executesOnce() {
    appendRows(events, 0, 10);
    appendRows(events, 10, 10);
    MaintenancePlan plan = events.maintenance().plan(MaintenancePolicy.builder().expireWhenSnapshotsAtLeast(2)
        .retainLastSnapshots(1).maxSnapshotAge(Duration.ZERO).build());
    List<MaintenanceProgress> progress = new ArrayList<>();

    MaintenanceReport report = plan.run(progress::add);

    assertThat(report.expiry().orElseThrow().expiredSnapshots()).isEqualTo(1);
    assertThat(progress).extracting(MaintenanceProgress::status).startsWith(Status.STARTED).contains(Status.FINISHED);
    assertThatThrownBy(plan::run)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute maintenance plan of table " + events.id() + ": already executed");
  }

  @Test
  void plan_thresholdsDecideStepsAndRunReportsProgressInSafeOrder() {
    for (int i = 0; i < 6; i++) {
      appendRows(events, i * 10L, 10);
    }
    MaintenancePolicy policy = MaintenancePolicy.builder()
        .compactWhenSmallFilesAtLeast(5)
        .expireWhenSnapshotsAtLeast(6)
        .rewriteManifestsWhenAtLeast(6)
        .retainLastSnapshots(1)
        .maxSnapshotAge(Duration.ZERO)
        .build();

    MaintenancePlan plan = events.maintenance().plan(policy);

    assertThat(plan.steps()).extracting(MaintenanceStep::task).containsExactly(
        MaintenanceTask.COMPACT, MaintenanceTask.REWRITE_MANIFESTS, MaintenanceTask.EXPIRE_SNAPSHOTS,
        MaintenanceTask.REMOVE_ORPHAN_FILES);
    assertThat(plan.steps().get(0).reason()).startsWith("small data files: 6 (threshold 5, smaller than ");
    assertThat(plan.steps().get(1).reason()).isEqualTo("data manifests: 6 (threshold 6)");
    assertThat(plan.steps().get(2).reason()).isEqualTo("snapshots: 6 (threshold 6)");

    List<MaintenanceProgress> progress = new ArrayList<>();
    MaintenanceReport report = plan.listener(progress::add).execute();

    assertThat(progress).extracting(MaintenanceProgress::task, MaintenanceProgress::status).containsExactly(
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.COMPACT, Status.STARTED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.COMPACT, Status.FINISHED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.REWRITE_MANIFESTS, Status.STARTED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.REWRITE_MANIFESTS, Status.FINISHED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.EXPIRE_SNAPSHOTS, Status.STARTED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.EXPIRE_SNAPSHOTS, Status.FINISHED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.REMOVE_ORPHAN_FILES, Status.STARTED),
        org.assertj.core.groups.Tuple.tuple(MaintenanceTask.REMOVE_ORPHAN_FILES, Status.FINISHED));
    assertThat(progress.get(1).message()).isEqualTo("rewrote 6 data files into 1");
    assertThat(report.compaction().orElseThrow().rewrittenDataFiles()).isEqualTo(6);
    assertThat(report.expiry().orElseThrow().expiredSnapshots()).isEqualTo(7); // 6 appends + compaction, manifests kept
    assertThat(report.expiry().orElseThrow().deletedDataFiles()).isEqualTo(6);
    assertThat(report.orphans().orElseThrow().candidates()).isEmpty(); // nothing older than 3 hours
    assertThat(events.snapshots().history()).hasSize(1);
    assertThat(events.query().count()).isEqualTo(60);
    assertThatThrownBy(plan::execute)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute maintenance plan of table " + events.id() + ": already executed");
  }

  @Test
  void plan_deleteFiles_triggerCompaction() {
    var file = appendRows(events, 0, 10).get(0);
    TestTables.positionDelete(events, file, 0);
    TestTables.positionDelete(events, file, 1);

    MaintenancePlan plan = events.maintenance().plan(MaintenancePolicy.builder()
        .compactWhenSmallFilesAtLeast(100).compactWhenDeleteFilesAtLeast(2).removeOrphans(false).build());

    assertThat(plan.steps()).containsExactly(new MaintenanceStep(MaintenanceTask.COMPACT, "delete files: 2 (threshold 2)"));
    assertThat(plan.execute().compaction().orElseThrow().removedDeleteFiles()).isEqualTo(2);
    assertThat(events.query().count()).isEqualTo(8);
  }

  @Test
  void policy_badThresholds_fail() {
    assertThatThrownBy(() -> MaintenancePolicy.builder().compactWhenSmallFilesAtLeast(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set small-file threshold: must be at least 1: 0");
    assertThatThrownBy(() -> MaintenancePolicy.builder().orphanSafetyWindow(Duration.ofSeconds(5)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set orphan safety window: below the minimum of PT1M: PT5S");
    assertThatThrownBy(() -> MaintenancePolicy.builder().maxSnapshots(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set maximum snapshots: must be at least 1: 0");
    assertThatThrownBy(() -> MaintenancePolicy.builder().retainLastSnapshots(10).maxSnapshots(5).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build maintenance policy: maximum snapshots below the snapshots to retain: 5 < 10");
  }

  @Test
  void rewriteManifests_mergesManifestsOfManyAppends() {
    for (int i = 0; i < 5; i++) {
      appendRows(events, i * 10L, 10);
    }

    RewriteManifestsResult result = events.maintenance().rewriteManifests();

    assertThat(result.manifestsBefore()).isEqualTo(5);
    assertThat(result.manifestsAfter()).isEqualTo(1);
    assertThat(result.snapshotId()).isPresent();
    assertThat(events.query().count()).isEqualTo(50);
  }

  @Test
  void rewriteManifests_emptyTable_doesNothing() {
    assertThat(events.maintenance().rewriteManifests()).isEqualTo(new RewriteManifestsResult(java.util.OptionalLong.empty(), 0, 0));
  }
}
