package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MetadataTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.dashboard.DashboardReport;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.PlanningThreadsFileIO;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/** Small snapshots with local manifests are planned on the calling thread, with the same tasks; others on Iceberg's pool. */
class ScanPlanningTest extends StoreTest {

  private FeatureTable table() {
    openLocalStore();
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .formatVersion(2).build());
    // one manifest per append, so the snapshot has as many manifests as appends
    table.unwrap(Table.class).updateProperties().set(TableProperties.MANIFEST_MERGE_ENABLED, "false").commit();
    table.refresh();
    return table;
  }

  private static DataFile append(FeatureTable table, long entity) {
    return TestTables.append(table, List.of(TestTables.event(table, entity, "2026-01-01T00:00:00Z", 1.0, null))).get(0);
  }

  private static Set<String> plan(TableScan scan) throws IOException {
    Set<String> tasks = new TreeSet<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      for (FileScanTask task : planned) {
        List<String> deletes = new ArrayList<>();
        task.deletes().stream().map(DeleteFile::location).sorted().forEach(deletes::add);
        tasks.add(task.file().location() + " " + deletes);
      }
    }
    return tasks;
  }

  @Test
  void fewLocalManifests_planOnTheCallingThread_withTheSameTasks() throws IOException {
    FeatureTable featureTable = table();
    DataFile first = append(featureTable, 1);
    append(featureTable, 2);
    append(featureTable, 3);
    TestTables.positionDelete(featureTable, first, 0);
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(3);
    assertThat(table.currentSnapshot().deleteManifests(table.io())).hasSize(1);

    assertThat(ScanPlanning.inline(table, table.currentSnapshot())).isTrue();
    Set<String> inline = plan(ScanPlanning.onCallingThreadIfSmall(table.newScan(), table, table.currentSnapshot()));
    assertThat(inline).hasSize(3).isEqualTo(plan(table.newScan()));
    assertThat(inline).filteredOn(task -> task.startsWith(first.location())).singleElement()
        .satisfies(task -> assertThat(task).doesNotEndWith("[]"));
  }

  @Test
  void manyManifests_stayOnTheWorkerPool() {
    FeatureTable featureTable = table();
    for (int i = 0; i <= ScanPlanning.MAX_INLINE_MANIFESTS; i++) {
      append(featureTable, i);
    }
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    assertThat(table.currentSnapshot().dataManifests(table.io())).hasSize(ScanPlanning.MAX_INLINE_MANIFESTS + 1);
    assertThat(ScanPlanning.inline(table, table.currentSnapshot())).isFalse();
  }

  @Test
  void onlyLocalPathsAreLocal() {
    assertThat(CommitPhases.isLocal("/tmp/w/metadata/snap-1.avro")).isTrue();
    assertThat(CommitPhases.isLocal("file:/tmp/w/metadata/snap-1.avro")).isTrue();
    assertThat(CommitPhases.isLocal("s3://bucket/w/metadata/snap-1.avro")).isFalse();
    assertThat(CommitPhases.isLocal("gs://bucket/w/metadata/snap-1.avro")).isFalse();
  }

  /** A store whose FileIO records the planning threads, with a table of three data manifests and one delete manifest. */
  private FeatureTable recordedTable(PlanningThreadsFileIO io) {
    store = FeatureStore.builder().root(dir.resolve("recorded")).fileIO(io).build();
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .formatVersion(2).build());
    table.unwrap(Table.class).updateProperties().set(TableProperties.MANIFEST_MERGE_ENABLED, "false").commit();
    table.refresh();
    DataFile first = append(table, 1);
    append(table, 2);
    append(table, 3);
    TestTables.positionDelete(table, first, 0);
    table.refresh();
    Table iceberg = table.unwrap(Table.class);
    assertThat(iceberg.currentSnapshot().dataManifests(iceberg.io())).hasSize(3);
    return table;
  }

  /** The operation's manifests were read, all on this thread. */
  private static void plannedOnThisThread(PlanningThreadsFileIO io, Runnable operation) {
    io.reset();
    operation.run();
    assertThat(io.threads()).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void iceberg_plansSeveralManifestsOnItsPool_whichTheRecordingSees() throws IOException {
    PlanningThreadsFileIO io = new PlanningThreadsFileIO();
    Table table = recordedTable(io).unwrap(Table.class);
    io.reset();
    plan(table.newScan());
    // the three data manifests on the pool (the one delete manifest is read where it is asked for)
    assertThat(io.threads()).anyMatch(name -> name.startsWith("iceberg-worker-pool"));
    io.reset();
    plan(ScanPlanning.newScan(table, table.currentSnapshot()));
    assertThat(io.threads()).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void everyScanSite_plansSmallLocalSnapshots_onTheCallingThread() {
    PlanningThreadsFileIO io = new PlanningThreadsFileIO();
    FeatureTable table = recordedTable(io);
    long first = table.snapshots().history().get(0).snapshotId();
    long last = TestTables.currentSnapshotId(table);
    plannedOnThisThread(io, () -> table.query().execute().close()); // query.ScanExecution
    plannedOnThisThread(io, () -> table.query().count());
    plannedOnThisThread(io, () -> table.snapshots().diff(first, last)); // snapshot.Diffs
    plannedOnThisThread(io, () -> table.metadata(MetadataTable.PARTITIONS).close()); // inspect.MetadataTables
    plannedOnThisThread(io, () -> table.maintenance().plan(MaintenancePolicy.defaults())); // maintenance.PlannedMaintenance
    plannedOnThisThread(io, () -> table.lookup("entity_id").get(2L)); // lookup.FooterCache
    plannedOnThisThread(io, () -> DashboardReport.forTable(table).render()); // dashboard.DashboardReport
    plannedOnThisThread(io, () -> table.maintenance().compact().minInputFiles(2).execute()); // maintenance.CompactionOperation
  }
}
