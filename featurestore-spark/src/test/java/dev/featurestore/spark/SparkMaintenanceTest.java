package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.MetadataTable;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.base.CatalogLease;
import dev.featurestore.core.catalog.VersionHint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance run by Spark (compaction applying deletion vectors, manifest rewrite, snapshot
 * expiry, orphan removal, a planned run), after which the library reads the same rows; and Spark
 * respects the table's maintenance lease.
 */
class SparkMaintenanceTest {
  private static final TableId TABLE = TableId.of("features", "clicks");

  @TempDir Path dir;

  /** A store whose clock is a day ahead, so files written now are past any orphan safety window. */
  private FeatureStore open() {
    return FeatureStore.builder().root(dir.resolve("store"))
        .clock(Clock.fixed(Instant.now().plus(Duration.ofDays(1)), ZoneOffset.UTC)).build();
  }

  private static FeatureTable smallFiles(FeatureStore store) {
    FeatureTable table = store.createTable(TableDefinition.builder(TABLE, new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "clicks", Types.IntegerType.get())))
        .formatVersion(3).build());
    for (int commit = 0; commit < 8; commit++) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        rows.add(Map.of("id", (long) commit * 100 + i, "clicks", i));
      }
      table.append(rows);
    }
    table.deleteRows().where(Expressions.lessThan("clicks", 3)).execute(); // a deletion vector per data file
    return table;
  }

  private static List<List<String>> libraryRows(FeatureTable table) {
    return RowText.of(table.query(), List.of("id", "clicks"));
  }

  @Test
  void compactionExpiryManifestsAndOrphans_onSpark_leaveTheRowsTheLibraryReads() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = smallFiles(store);
      List<List<String>> before = libraryRows(table);
      assertThat(before).hasSize(8 * 22);
      long tagged = table.snapshots().current().orElseThrow().snapshotId();
      table.snapshots().createTag("kept", tagged);
      SparkFeatureStore spark = SharedSpark.attach(store);
      SparkTableMaintenance maintenance = spark.maintenance(TABLE);

      CompactionResult compacted = maintenance.compact().execute();
      assertThat(compacted.rewrittenDataFiles()).isEqualTo(8);
      assertThat(compacted.addedDataFiles()).isEqualTo(1);
      assertThat(compacted.removedDeleteFiles()).isPositive();
      assertThat(compacted.rows()).isEqualTo(8 * 22);
      table.refresh();
      assertThat(libraryRows(table)).as("after compaction on Spark").isEqualTo(before);
      assertThat(table.stats().deleteFiles()).isZero();

      RewriteManifestsResult manifests = maintenance.rewriteManifests();
      assertThat(manifests.manifestsAfter()).isLessThanOrEqualTo(manifests.manifestsBefore());

      ExpireResult expired = maintenance.expireSnapshots().retainLast(1).execute();
      assertThat(expired.expiredSnapshotIds()).isNotEmpty().doesNotContain(tagged);
      assertThat(expired.deletedFiles()).isPositive();
      assertThat(expired.bytesFreed()).isPositive();
      table.refresh();
      assertThat(libraryRows(table)).as("after expiry on Spark").isEqualTo(before);
      assertThat(RowText.of(table.query().atRef("kept"), List.of("id", "clicks"))).as("the tag's snapshot").isEqualTo(before);

      Path data = Path.of(java.net.URI.create(table.location().startsWith("/") ? "file://" + table.location()
          : table.location())).resolve("data");
      Path orphan = Files.writeString(data.resolve("orphan-from-a-crash.parquet"), "not referenced");
      OrphanFilesResult dryRun = maintenance.removeOrphanFiles().olderThan(Duration.ofHours(3)).dryRun();
      assertThat(dryRun.candidates()).extracting(OrphanFilesResult.OrphanFile::location)
          .anyMatch(l -> l.endsWith("orphan-from-a-crash.parquet"));
      assertThat(orphan).exists();
      OrphanFilesResult removed = maintenance.removeOrphanFiles().olderThan(Duration.ofHours(3)).execute();
      assertThat(removed.deleted()).isTrue();
      assertThat(orphan).doesNotExist();
      Path metadata = data.resolveSibling("metadata");
      assertThat(metadata.resolve(VersionHint.FILE_NAME)).as("the store's version hint is no orphan").exists();
      try (Stream<Path> files = Files.list(metadata)) {
        assertThat(files.filter(p -> p.getFileName().toString().matches("v\\d+\\.metadata\\.json"))).isNotEmpty();
      }
      table.refresh();
      assertThat(libraryRows(table)).as("after orphan removal on Spark").isEqualTo(before);
      assertThat(RowText.of(spark.read(table.query()))).isEqualTo(before);

      List<Map<String, Object>> log = table.metadata(MetadataTable.OPERATIONS).toList().stream()
          .filter(r -> ((String) r.get("details")).contains("\"engine\":\"spark\"")).toList();
      assertThat(log).as("Spark's maintenance runs in the store's operations log").extracting(r -> r.get("operation"))
          .containsExactly("compact", "rewrite_manifests", "expire_snapshots", "remove_orphan_files");
      assertThat(log).extracting(r -> r.get("table_name")).containsOnly(TABLE.toString());
      assertThat(log.get(0).get("snapshot_id")).isEqualTo(compacted.snapshotId().getAsLong());
      assertThat((String) log.get(0).get("details")).contains("\"rewritten_files\":8").contains("\"added_files\":1")
          .contains("\"rows\":" + 8 * 22).contains("\"spark_application\":\"local-");
      assertThat((String) log.get(2).get("details"))
          .contains("\"expired_snapshot_ids\":" + expired.expiredSnapshotIds().toString().replace(" ", ""));
      assertThat((String) log.get(3).get("details")).contains("\"deleted_files\":" + removed.candidates().size());
    }
  }

  @Test
  void plan_decidesWithTheLibrarysThresholds_andRunsEachStepOnSpark() {
    try (FeatureStore store = open()) {
      FeatureTable table = smallFiles(store);
      List<List<String>> before = libraryRows(table);
      MaintenancePolicy policy = MaintenancePolicy.builder().compactWhenSmallFilesAtLeast(4)
          .expireWhenSnapshotsAtLeast(5).retainLastSnapshots(2).maxSnapshotAge(Duration.ZERO).build();
      SparkTableMaintenance maintenance = SharedSpark.attach(store).maintenance(TABLE);
      var plan = maintenance.plan(policy);
      assertThat(plan.steps()).extracting(s -> s.task()).isEqualTo(table.maintenance().plan(policy).steps().stream()
          .map(s -> s.task()).toList());
      assertThat(plan.steps()).extracting(s -> s.task())
          .containsExactly(MaintenanceTask.COMPACT, MaintenanceTask.EXPIRE_SNAPSHOTS, MaintenanceTask.REMOVE_ORPHAN_FILES);
      List<String> progress = new ArrayList<>();
      MaintenanceReport report = plan.listener(p -> progress.add(p.task() + " " + p.status())).execute();
      assertThat(report.compaction().orElseThrow().rewrittenDataFiles()).isEqualTo(8);
      assertThat(report.expiry().orElseThrow().expiredSnapshots()).isPositive();
      assertThat(progress).containsExactly("COMPACT STARTED", "COMPACT FINISHED", "EXPIRE_SNAPSHOTS STARTED",
          "EXPIRE_SNAPSHOTS FINISHED", "REMOVE_ORPHAN_FILES STARTED", "REMOVE_ORPHAN_FILES FINISHED");
      table.refresh();
      assertThat(libraryRows(table)).isEqualTo(before);
      assertThatThrownBy(() -> maintenance.background(policy)).isInstanceOf(InvalidStateException.class);
    }
  }

  @Test
  void aLeaseHeldByAnotherMaintainer_stopsSparkBeforeItChangesAnything() {
    try (FeatureStore store = open()) {
      FeatureTable table = smallFiles(store);
      long snapshot = table.snapshots().current().orElseThrow().snapshotId();
      try (CatalogLease lease = CatalogLease.forStore(store.config(), store.config().clock()).orElseThrow()) {
        CatalogLease.Grant held = lease.acquire(CatalogLease.maintenanceLeaseName(TABLE), "background-maintainer",
            Duration.ofMinutes(5));
        SparkTableMaintenance maintenance = SharedSpark.attach(store).maintenance(TABLE);
        assertThatThrownBy(() -> maintenance.compact().execute())
            .isInstanceOf(InvalidStateException.class)
            .hasMessage("Cannot acquire lease maintenance:features.clicks: held by background-maintainer until "
                + held.expiresAt() + ": maintenance:features.clicks");
        table.refresh();
        assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(snapshot);
        lease.release(held);
        assertThat(maintenance.compact().execute().rewrittenDataFiles()).isEqualTo(8);
        assertThat(lease.holder(CatalogLease.maintenanceLeaseName(TABLE)).orElseThrow().expiresAt())
            .as("released after the operation").isEqualTo(Instant.EPOCH);
      }
    }
  }
}
