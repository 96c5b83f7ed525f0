package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceRun;
import dev.featurestore.MaintenanceRun.Lease;
import dev.featurestore.MaintenanceRun.Outcome;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.MetricsListener;
import dev.featurestore.core.base.CatalogLease;
import dev.featurestore.core.catalog.VersionHint;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.testing.HandClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackgroundMaintenanceTest {
  @TempDir Path dir;
  private final HandClock clock = HandClock.aheadOfSystem();
  private final List<MaintenanceRun> reported = Collections.synchronizedList(new ArrayList<>());
  private final List<FeatureStore> stores = new ArrayList<>();

  /** Checks only when the test calls {@code check()}: the scheduled check is an hour away. */
  private static MaintenancePolicy.Builder byHand() {
    return MaintenancePolicy.builder().checkEvery(Duration.ofHours(1)).leaseDuration(Duration.ofHours(2))
        .removeOrphans(false);
  }

  private FeatureStore open(FileIO io) {
    var b = FeatureStore.builder().root(dir).clock(clock).metricsListener(new MetricsListener() {
      @Override
      public void onMaintenance(MaintenanceRun run) {
        reported.add(run);
      }
    });
    if (io != null) {
      b.fileIO(io);
    }
    FeatureStore store = b.build();
    stores.add(store);
    return store;
  }

  @AfterEach
  void tearDown() {
    stores.forEach(FeatureStore::close);
  }

  @Test
  void background_compactsExpiresAndBoundsMetadata_whileAWriterKeepsAppending() throws IOException {
    FeatureTable events = TestTables.createEvents(open(null), false);
    MaintenancePolicy policy = byHand().compactWhenSmallFilesAtLeast(5).rewriteManifestsWhenAtLeast(5)
        .expireWhenSnapshotsAtLeast(10).retainLastSnapshots(3).maxSnapshotAge(Duration.ofMinutes(1))
        .metadataVersionsToKeep(5).build();
    long nextId = 0;
    try (BackgroundMaintenance handle = events.maintenance().background(policy)) {
      BackgroundMaintainer m = (BackgroundMaintainer) handle;
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 10; i++) {
          appendRows(events, nextId, 5);
          nextId += 5;
        }
        clock.advance(Duration.ofMinutes(5)); // every snapshot so far is past maxSnapshotAge
        MaintenanceRun run = m.check();
        assertThat(run.outcome()).as(run.message()).isEqualTo(Outcome.DONE);
        assertThat(run.tasks()).contains(MaintenanceTask.COMPACT, MaintenanceTask.EXPIRE_SNAPSHOTS);
        assertThat(run.lease()).isEqualTo(round == 0 ? Lease.ACQUIRED : Lease.HELD);
      }
      BackgroundMaintenanceStatus status = handle.status();
      assertThat(status.rounds()).isEqualTo(5);
      assertThat(status.dataFilesCompacted()).isGreaterThanOrEqualTo(50);
      assertThat(status.snapshotsExpired()).isGreaterThan(40);
      assertThat(status.manifestsRewritten()).isPositive();
      assertThat(status.bytesFreed()).isPositive();
      assertThat(status.leaseHeld()).isTrue();
    }

    Table table = events.unwrap(Table.class);
    table.refresh();
    assertThat(table.properties()).containsEntry(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
        .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "5");
    assertThat(metadataFiles(table)).isLessThanOrEqualTo(6); // the current one and the five kept in the log
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    assertThat(snapshots).isLessThanOrEqualTo(3 + 2); // the last 3, and this round's compaction and manifest rewrite
    assertThat(dataFilesOnDisk(table)).isLessThan(25); // 250 appends' files would be 50
    assertThat(entityIds(events)).hasSize((int) nextId).doesNotHaveDuplicates();
    assertThat(reported).hasSize(5).allMatch(r -> r.outcome() == Outcome.DONE);
  }

  @Test
  void background_losesToAWriterCommit_thenCompactsAtTheNextCheck() {
    HookedFileIO io = new HookedFileIO();
    FeatureTable events = TestTables.createEvents(open(io), false);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.addAll(appendRows(events, i * 10, 10));
    }
    // while compaction writes its output, a writer deletes rows of files being rewritten with one delete file for
    // two data files (as other engines write them): the writer's commit lands, the compaction cannot carry it over
    io.onCompactionOutput = () -> TestTables.positionDeletes(events, Map.of(files.get(1), List.of(0L), files.get(2), List.of(9L)));
    MaintenancePolicy policy = byHand().compactWhenSmallFilesAtLeast(5).build();
    try (BackgroundMaintenance handle = events.maintenance().background(policy)) {
      BackgroundMaintainer m = (BackgroundMaintainer) handle;

      MaintenanceRun lost = m.check();
      assertThat(lost.outcome()).isEqualTo(Outcome.CONFLICT);
      assertThat(lost.message()).startsWith("Cannot compact table features.feature_events: a concurrent commit conflicts: ");
      assertThat(events.query().count()).isEqualTo(58);

      MaintenanceRun next = m.check();
      assertThat(next.outcome()).isEqualTo(Outcome.DONE);
      assertThat(next.dataFilesCompacted()).isEqualTo(6);
      assertThat(next.deleteFilesRemoved()).isEqualTo(1);
      assertThat(handle.status().roundsFailed()).isEqualTo(1);
      assertThat(handle.status().lastError()).contains(lost.message());
    }
    assertThat(entityIds(events)).hasSize(58).doesNotHaveDuplicates().doesNotContain(10L, 29L);
    assertThat(MaintenanceTestData.liveDataFiles(events)).hasSize(1);
  }

  @Test
  void twoMaintainers_oneWorksTheOtherSkips_andTheLeaseIsTakenOverAfterItsHolderStopsRenewing() {
    FeatureStore first = open(null);
    FeatureTable events = TestTables.createEvents(first, false);
    FeatureStore second = open(null); // another store on the same catalog, as another process would be
    leaseHandover(events, second.table(events.id()), clock);
  }

  /**
   * Two maintainers of one table through two stores on one catalog database: one works, the other
   * skips; the lease is taken over once its holder stops renewing, and taken at once when released.
   */
  static void leaseHandover(FeatureTable viaFirst, FeatureTable viaSecond, HandClock clock) {
    MaintenancePolicy policy = byHand().build();
    BackgroundMaintainer a = (BackgroundMaintainer) viaFirst.maintenance().background(policy);
    BackgroundMaintainer b = (BackgroundMaintainer) viaSecond.maintenance().background(policy);
    try {
      MaintenanceRun aRun = a.check();
      assertThat(aRun.lease()).isEqualTo(Lease.ACQUIRED);
      assertThat(aRun.outcome()).isEqualTo(Outcome.NOTHING_TO_DO);
      MaintenanceRun bRun = b.check();
      assertThat(bRun.lease()).isEqualTo(Lease.HELD_ELSEWHERE);
      assertThat(bRun.outcome()).isEqualTo(Outcome.SKIPPED);
      assertThat(a.check().lease()).isEqualTo(Lease.HELD);

      // a stops renewing (a paused or dead process); its lease expires
      clock.advance(Duration.ofHours(2).plusSeconds(1));
      MaintenanceRun takeover = b.check();
      assertThat(takeover.lease()).isEqualTo(Lease.TAKEN_OVER);
      assertThat(takeover.leaseToken()).isEqualTo(aRun.leaseToken() + 1);
      assertThat(b.status().leaseTakeovers()).isEqualTo(1);

      MaintenanceRun lost = a.check();
      assertThat(lost.lease()).isEqualTo(Lease.LOST);
      assertThat(lost.outcome()).isEqualTo(Outcome.SKIPPED);
      assertThat(a.status().leaseLosses()).isEqualTo(1);
      assertThat(a.status().leaseHeld()).isFalse();
      assertThat(a.check().lease()).isEqualTo(Lease.HELD_ELSEWHERE);

      b.close(); // releases the lease: taken at once, no expiry to wait for
      MaintenanceRun again = a.check();
      assertThat(again.lease()).isEqualTo(Lease.ACQUIRED);
      assertThat(again.leaseToken()).isEqualTo(takeover.leaseToken() + 1); // every new holder gets a new token
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void storeClose_stopsBackgroundMaintenance_andReleasesItsLease() {
    FeatureStore store = open(null);
    FeatureTable events = TestTables.createEvents(store, false);
    BackgroundMaintenance handle = events.maintenance().background(byHand().build());
    BackgroundMaintainer m = (BackgroundMaintainer) handle;
    m.check();
    assertThat(handle.status().running()).isTrue();

    store.close();

    assertThat(handle.status().running()).isFalse();
    try (CatalogLease lease = new CatalogLease("jdbc:sqlite:" + dir.resolve("catalog.db"), new Properties(), clock)) {
      CatalogLease.Grant holder = lease.holder(CatalogLease.maintenanceLeaseName(events.id())).orElseThrow();
      assertThat(holder.owner()).isEqualTo(m.owner());
      assertThat(holder.expiresAt().toEpochMilli()).isZero(); // released
    }
    handle.close(); // twice is fine
  }

  @Test
  void background_removesOrphansAtItsFirstCheck_andThenEveryInterval() throws IOException {
    FeatureTable events = TestTables.createEvents(open(null), false);
    appendRows(events, 0, 10);
    Table table = events.unwrap(Table.class);
    Path orphan = LocalFileIO.toPath(table.location() + "/data/left-by-a-crash.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    clock.advance(Duration.ofHours(4)); // older than the 3 h safety window
    MaintenancePolicy policy = byHand().removeOrphans(true).removeOrphansEvery(Duration.ofHours(6)).build();
    try (BackgroundMaintenance handle = events.maintenance().background(policy)) {
      BackgroundMaintainer m = (BackgroundMaintainer) handle;
      MaintenanceRun first = m.check();
      assertThat(first.tasks()).containsExactly(MaintenanceTask.REMOVE_ORPHAN_FILES);
      assertThat(first.orphanFilesRemoved()).isEqualTo(1);
      assertThat(orphan).doesNotExist();

      assertThat(m.check().outcome()).isEqualTo(Outcome.NOTHING_TO_DO); // not due again yet
      clock.advance(Duration.ofHours(6));
      assertThat(m.check().tasks()).containsExactly(MaintenanceTask.REMOVE_ORPHAN_FILES);
    }
    assertThat(events.query().count()).isEqualTo(10);
  }

  @Test
  void maintenanceCommits_carryTheStreamMarksForward_soExpiringTheStreamsSnapshotsKeepsThem() {
    FeatureTable events = TestTables.createEvents(open(null), false);
    for (int i = 0; i < 4; i++) {
      appendRows(events, i * 10, 10);
    }
    Table table = events.unwrap(Table.class);
    table.refresh();
    table.newAppend().set("featurestore.cdc.shard.s1.max-seq", "42").set("other.key", "x").commit(); // a stream's commit
    events.refresh();

    assertThat(events.maintenance().compact().execute().rewrittenDataFiles()).isEqualTo(4);
    assertThat(events.maintenance().rewriteManifests().snapshotId()).isPresent();
    events.maintenance().expireSnapshots().retainLast(1).execute();

    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(table.currentSnapshot().summary()).containsEntry("featurestore.cdc.shard.s1.max-seq", "42")
        .doesNotContainKey("other.key");
  }

  @Test
  void policy_badBackgroundSettings_areRefused() {
    assertThatThrownBy(() -> MaintenancePolicy.builder().checkEvery(Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set maintenance check interval: must be at least 1 ms: PT0S");
    assertThatThrownBy(() -> MaintenancePolicy.builder().removeOrphansEvery(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set orphan removal interval: must be at least 1 ms: PT-1S");
    assertThatThrownBy(() -> MaintenancePolicy.builder().metadataVersionsToKeep(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set metadata versions to keep: must be at least 1: 0");
    assertThatThrownBy(() -> MaintenancePolicy.builder().leaseDuration(Duration.ofMillis(50)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set maintenance lease: shorter than 100 ms: PT0.05S");
    assertThatThrownBy(() -> MaintenancePolicy.builder().checkEvery(Duration.ofMinutes(10)).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build maintenance policy: lease duration not above the check interval: PT5M <= PT10M");
    assertThatThrownBy(() -> MaintenancePolicy.builder().checkEvery(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set maintenance check interval: interval is null: null");
    MaintenancePolicy streaming = MaintenancePolicy.streaming();
    assertThat(streaming.checkEvery()).isEqualTo(Duration.ofSeconds(30));
    assertThat(streaming.maxSnapshotAge()).isEqualTo(Duration.ofMinutes(15));
    assertThat(streaming.metadataVersionsToKeep()).isEqualTo(20);
    assertThat(streaming.toBuilder().build().toString()).isEqualTo(streaming.toString());
  }

  static List<Long> entityIds(FeatureTable table) {
    List<Long> ids = new ArrayList<>();
    try (var rows = table.query().select("entity_id").execute()) {
      for (Map<String, Object> row : rows.toList()) {
        ids.add((Long) row.get("entity_id"));
      }
    }
    return ids;
  }

  private static long metadataFiles(Table table) throws IOException {
    try (Stream<Path> files = Files.list(LocalFileIO.toPath(table.location() + "/metadata"))) {
      // the catalog's files, not the v<N>.metadata.json copies for path-based readers (VersionHint)
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".metadata.json") && !VersionHint.isCopy(n)).count();
    }
  }

  private static long dataFilesOnDisk(Table table) throws IOException {
    try (Stream<Path> files = Files.walk(LocalFileIO.toPath(table.location() + "/data"))) {
      return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).count();
    }
  }

  /** The local FileIO, running a hook once when the first compaction output file is created. */
  static final class HookedFileIO extends ForwardingFileIO {
    volatile Runnable onCompactionOutput;

    HookedFileIO() {
      super(new LocalFileIO(), Ownership.OWNED);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      Runnable hook = onCompactionOutput;
      if (hook != null && path.contains("compact-")) {
        onCompactionOutput = null;
        hook.run();
      }
      return super.newOutputFile(path);
    }
  }
}
