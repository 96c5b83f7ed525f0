package dev.featurestore.core.tiering;

import static dev.featurestore.core.tiering.TieringTest.coldPrefix;
import static dev.featurestore.core.tiering.TieringTest.create;
import static dev.featurestore.core.tiering.TieringTest.fourCommits;
import static dev.featurestore.core.tiering.TieringTest.liveFiles;
import static dev.featurestore.core.tiering.TieringTest.observe;
import static dev.featurestore.core.tiering.TieringTest.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.OrphanFilesResult.OrphanFile;
import dev.featurestore.core.TestClock;
import dev.featurestore.core.storage.s3.S3TestServer;
import dev.featurestore.core.tiering.TieringTest.Observed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Orphan removal with a cold tier (local disk hot, loopback S3 behind the B2 gate cold): a cold
 * object no snapshot reaches is found and removed like a hot orphan, while cold copies that a
 * snapshot reaches by their cold path or by the hot path they were moved from are kept.
 */
class ColdOrphanFilesTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;
  private final TestClock clock = new TestClock();

  static final String COLD = "s3://" + S3TestServer.BUCKET + "/";

  FeatureStore open() {
    return FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).clock(clock).build();
  }

  void put(String key, byte[] bytes) {
    s3.direct().putObject(b -> b.bucket(S3TestServer.BUCKET).key(key), RequestBody.fromBytes(bytes));
  }

  static List<String> coldCandidates(OrphanFilesResult result) {
    return result.candidates().stream().map(OrphanFile::location).filter(l -> l.startsWith(COLD)).toList();
  }

  @Test
  void coldOrphan_isFoundByDryRun_andRemovedByExecute_whileReferencedColdCopiesStay() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "orphans", false);
      List<Long> snapshots = fourCommits(table, 1);
      Table iceberg = table.unwrap(Table.class);

      assertThat(table.tiering().olderThan(Duration.ZERO).execute().filesMoved()).isEqualTo(4);
      assertThat(s3.keys(coldPrefix("orphans"))).hasSize(4); // referenced by their cold path

      // a fifth file, then dropped from the current snapshot: only an old snapshot names its hot path
      table.append(rows(4, 1));
      DataFile fifth;
      iceberg.refresh();
      try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
        fifth = java.util.stream.StreamSupport.stream(tasks.spliterator(), false).map(FileScanTask::file)
            .filter(f -> !f.location().startsWith(COLD)).findFirst().orElseThrow();
      }
      iceberg.newDelete().deleteFile(fifth).commit();
      String warehouse = root.resolve("warehouse").toAbsolutePath().normalize().toString();
      String fifthHot = Path.of(fifth.location().replaceFirst("^file:", "")).toAbsolutePath().normalize().toString();
      assertThat(fifthHot).startsWith(warehouse + "/");
      String fifthColdKey = "warehouse" + fifthHot.substring(warehouse.length());
      put(fifthColdKey, Files.readAllBytes(Path.of(fifthHot))); // a cold copy of it, as tiering would leave
      Files.delete(Path.of(fifthHot)); // moved: the old snapshot is now served by the cold copy

      String orphanKey = coldPrefix("orphans") + "00000-0-leftover.parquet";
      put(orphanKey, new byte[] {1, 2, 3, 4, 5});
      Observed before = observe(table, snapshots.get(1));
      List<String> live = liveFiles(table);
      long oldRows = table.query().asOfSnapshot(iceberg.currentSnapshot().parentId()).count();
      assertThat(oldRows).isEqualTo(250);

      // young under the default window: nothing cold is a candidate
      assertThat(coldCandidates(table.maintenance().removeOrphanFiles().dryRun())).isEmpty();

      clock.advance(Duration.ofSeconds(2)); // S3 modification times are whole seconds: no sleep, the store's clock moves
      OrphanFilesResult dry = table.maintenance().removeOrphanFiles().unsafe().olderThan(Duration.ofMillis(1)).dryRun();
      assertThat(dry.deleted()).isFalse();
      assertThat(coldCandidates(dry)).containsExactly(COLD + orphanKey);
      assertThat(dry.candidates()).filteredOn(f -> f.location().equals(COLD + orphanKey))
          .extracting(OrphanFile::sizeBytes).containsExactly(5L);
      assertThat(dry.scannedFiles()).isGreaterThanOrEqualTo(6); // 4 moved + the fifth's copy + the orphan, plus hot files
      assertThat(s3.keys(orphanKey)).hasSize(1);

      OrphanFilesResult removed = table.maintenance().removeOrphanFiles().unsafe().olderThan(Duration.ofMillis(1))
          .execute();
      assertThat(removed.deleted()).isTrue();
      assertThat(coldCandidates(removed)).containsExactly(COLD + orphanKey);
      assertThat(s3.keys(orphanKey)).isEmpty();
      assertThat(s3.keys(coldPrefix("orphans"))).hasSize(5).contains(fifthColdKey);

      assertThat(liveFiles(table)).isEqualTo(live);
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      iceberg.refresh();
      assertThat(table.query().asOfSnapshot(iceberg.currentSnapshot().parentId()).count()).isEqualTo(oldRows);
      assertThat(coldCandidates(table.maintenance().removeOrphanFiles().unsafe().olderThan(Duration.ofMillis(1))
          .dryRun())).isEmpty();
    }
  }
}
