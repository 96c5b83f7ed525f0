package dev.featurestore.core.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.QueryResult;
import dev.featurestore.StorageException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TieringProgress;
import dev.featurestore.TieringResult;
import dev.featurestore.TieringStatus;
import dev.featurestore.ValidationException;
import dev.featurestore.core.storage.TieredFileIO;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering from local disk (hot) to a loopback S3 bucket behind the B2 gate (cold, B2 profile):
 * every read (full scan, filtered query, point lookup of a cold entity, time travel to an older
 * snapshot) returns the same rows before and after each move, and every failure leaves a readable
 * table with nothing left behind that a later run does not clean.
 */
class TieringTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  static final Instant DAY0 = Instant.parse("2026-01-01T00:00:00Z");

  FeatureStore open() {
    return FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).build();
  }

  @Test
  void olderThan_isMeasuredByTheStoresClock() throws Exception {
    dev.featurestore.core.TestClock clock = new dev.featurestore.core.TestClock();
    try (FeatureStore store = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).clock(clock).build()) {
      FeatureTable table = create(store, "clocked", false);
      fourCommits(table, 1);
      assertThat(table.tiering().olderThan(Duration.ofDays(1)).dryRun().filesMoved()).isZero();
      clock.advance(Duration.ofDays(2));
      assertThat(table.tiering().olderThan(Duration.ofDays(1)).dryRun().filesMoved()).isEqualTo(4);
    }
  }

  static FeatureTable create(FeatureStore store, String name, boolean partitioned) {
    TableDefinition.Builder definition = TableDefinition.builder(TableId.of("tiering", name), SyntheticFeatures.schema());
    if (partitioned) {
      definition.partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build());
    }
    return store.createTable(definition.build());
  }

  /** Rows of entities batch*1000 .. batch*1000+49, spread over {@code days} days. */
  static List<Map<String, Object>> rows(int batch, int days) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Map<String, Object> row = new HashMap<>();
      row.put("entity_id", batch * 1000L + i);
      row.put("event_time", DAY0.plus(Duration.ofDays(batch + (i % days))).plusSeconds(i));
      row.put("feature_a", batch + i / 100.0);
      row.put("feature_b", (double) i);
      rows.add(row);
    }
    return rows;
  }

  /** Appends four batches, one commit each; returns their snapshot ids. */
  static List<Long> fourCommits(FeatureTable table, int days) throws InterruptedException {
    List<Long> snapshots = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      snapshots.add(table.append(rows(b, days)).snapshotId().orElseThrow());
      Thread.sleep(3); // distinct commit times, so an age threshold can fall between commits
    }
    return snapshots;
  }

  /** What the tests compare before and after a move. */
  record Observed(List<Map<String, Object>> all, List<Map<String, Object>> filtered, Map<String, Object> coldEntity,
      List<Map<String, Object>> older) {}

  static Observed observe(FeatureTable table, long olderSnapshot) {
    return new Observed(
        sorted(table.query()::execute),
        sorted(table.query().filter(Expressions.and(Expressions.greaterThan("feature_b", 25.0),
            Expressions.lessThan("entity_id", 2000L)))::execute),
        table.lookup("entity_id").latestBy("event_time").get(1005L).row().orElseThrow(),
        sorted(table.query().asOfSnapshot(olderSnapshot)::execute));
  }

  static List<Map<String, Object>> sorted(java.util.function.Supplier<QueryResult> query) {
    try (QueryResult result = query.get()) {
      List<Map<String, Object>> rows = new ArrayList<>(result.toList());
      rows.sort(Comparator.comparing(r -> (Long) r.get("entity_id")));
      return rows;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static TieringOperation tiering(FeatureTable table) {
    return (TieringOperation) table.tiering();
  }

  static List<String> liveFiles(FeatureTable table) throws Exception {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    }
    files.sort(Comparator.naturalOrder());
    return files;
  }

  static String coldPrefix(String table) {
    return "warehouse/tiering/" + table + "/data/";
  }

  @Test
  void run_movesFilesOlderThanTheThreshold_andEveryReadIsUnchanged() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "moves", false);
      List<Long> snapshots = fourCommits(table, 1);
      Table iceberg = table.unwrap(Table.class);
      long second = iceberg.snapshot(snapshots.get(1)).timestampMillis();
      long now = iceberg.snapshot(snapshots.get(3)).timestampMillis() + 60_000;
      Duration olderThanSecond = Duration.ofMillis(now - second);
      Observed before = observe(table, snapshots.get(1));
      List<String> hotFiles = liveFiles(table);

      TieringOperation dry = tiering(table);
      dry.now = () -> now;
      TieringResult planned = dry.olderThan(olderThanSecond).dryRun();
      assertThat(planned.dryRun()).isTrue();
      assertThat(planned.filesMoved()).isEqualTo(2);
      assertThat(planned.commits()).isZero();
      assertThat(liveFiles(table)).isEqualTo(hotFiles);
      assertThat(s3.keys(coldPrefix("moves"))).isEmpty();

      List<TieringProgress> progress = new ArrayList<>();
      TieringOperation first = tiering(table);
      first.now = () -> now;
      TieringResult moved = first.olderThan(olderThanSecond).listener(progress::add).execute();
      assertThat(moved.filesMoved()).isEqualTo(2);
      assertThat(moved.movedFiles()).containsExactlyInAnyOrderElementsOf(planned.movedFiles());
      assertThat(moved.commits()).isEqualTo(2); // files of two source commits: two sequence numbers
      assertThat(progress).extracting(TieringProgress::snapshotId).isEqualTo(moved.snapshotIds());
      assertThat(s3.keys(coldPrefix("moves"))).hasSize(2);
      for (String hot : moved.movedFiles()) {
        assertThat(Path.of(hot)).doesNotExist();
      }
      TieringStatus half = table.tiering().status();
      assertThat(half.hotDataFiles()).isEqualTo(2);
      assertThat(half.coldDataFiles()).isEqualTo(2);
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      assertThat(table.query().count()).isEqualTo(200);

      TieringResult rest = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(rest.filesMoved()).isEqualTo(2);
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      TieringStatus all = table.tiering().status();
      assertThat(all.hotDataFiles()).isZero();
      assertThat(all.coldDataFiles()).isEqualTo(4);
      assertThat(all.coldBytes()).isEqualTo(half.hotBytes() + half.coldBytes());
      assertThat(all.cache().misses()).isPositive();
      assertThat(all.cache().hits()).isPositive(); // the same cold files were read again

      TieringResult again = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(again.filesMoved()).isZero();
      assertThat(again.commits()).isZero();
      assertThat(again.skipped()).isEmpty();
    }
    // a fresh store (cold cache on disk, new FileIO) reads the same rows
    try (FeatureStore store = open()) {
      FeatureTable table = store.table(TableId.of("tiering", "moves"));
      assertThat(table.query().count()).isEqualTo(200);
      assertThat(table.lookup("entity_id").get(3001L).row()).isPresent();
    }
  }

  @Test
  void partitionedTable_keepsPartitionsMetricsAndSequenceNumbers_andPrunesTheSame() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "partitioned", true);
      List<Long> snapshots = fourCommits(table, 3);
      Observed before = observe(table, snapshots.get(2));
      Map<String, DataFile> hotByName = new HashMap<>();
      Table iceberg = table.unwrap(Table.class);
      try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
        tasks.forEach(t -> hotByName.put(Path.of(t.file().location()).getFileName().toString(), t.file()));
      }
      long prunedBefore = table.explainPruning(Expressions.equal("entity_id", 2001L)).kept().size();

      TieringResult moved = table.tiering().olderThan(Duration.ZERO).filesPerCommit(2).execute();
      assertThat(moved.filesMoved()).isEqualTo(12);
      assertThat(moved.commits()).isEqualTo(8); // 4 source commits x 3 files, at most 2 per commit

      iceberg.refresh();
      try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          DataFile cold = task.file();
          assertThat(cold.location()).startsWith("s3://" + S3TestServer.BUCKET + "/warehouse/tiering/partitioned/data/");
          DataFile hot = hotByName.get(cold.location().substring(cold.location().lastIndexOf('/') + 1));
          assertThat(cold.partition()).isEqualTo(hot.partition());
          assertThat(cold.recordCount()).isEqualTo(hot.recordCount());
          assertThat(cold.fileSizeInBytes()).isEqualTo(hot.fileSizeInBytes());
          assertThat(cold.lowerBounds()).isEqualTo(hot.lowerBounds());
          assertThat(cold.upperBounds()).isEqualTo(hot.upperBounds());
          assertThat(cold.dataSequenceNumber()).isEqualTo(hot.dataSequenceNumber());
        }
      }
      assertThat(table.explainPruning(Expressions.equal("entity_id", 2001L)).kept()).hasSize((int) prunedBefore);
      assertThat(observe(table, snapshots.get(2))).isEqualTo(before);
    }
  }

  @Test
  void hotBucket_toColdPrefix_movesAndReadsTheSame() throws Exception {
    ObjectStorage cold = ObjectStorage.builder(StorageProvider.B2).endpoint(s3.gate().endpoint())
        .region(S3TestServer.REGION).bucket(S3TestServer.BUCKET).keyPrefix("cold")
        .credentials(S3TestServer.KEY_ID, S3TestServer.SECRET).build();
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).coldStorage(cold)
        .build()) {
      FeatureTable table = create(store, "hotbucket", true);
      List<Long> snapshots = fourCommits(table, 2);
      Observed before = observe(table, snapshots.get(1));
      TieringResult moved = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(moved.filesMoved()).isEqualTo(8);
      assertThat(s3.keys("cold/warehouse/tiering/hotbucket/data/")).hasSize(8);
      assertThat(s3.keys("warehouse/tiering/hotbucket/data/")).isEmpty();
      assertThat(s3.keys("warehouse/tiering/hotbucket/metadata/")).isNotEmpty();
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      assertThat(table.tiering().olderThan(Duration.ZERO).execute().filesMoved()).isZero();
    }
  }

  @Test
  void coldCache_isBoundedAndEvicts_butReadsStayCorrect() throws Exception {
    Observed before;
    List<Long> snapshots;
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "cache", false);
      snapshots = fourCommits(table, 1);
      before = observe(table, snapshots.get(1));
      table.tiering().olderThan(Duration.ZERO).execute();
    }
    Path cache = root.resolve("small-cache");
    try (FeatureStore store = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate())
        .coldCache(cache, 1).build()) {
      FeatureTable table = store.table(TableId.of("tiering", "cache"));
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      TieringStatus status = table.tiering().status();
      assertThat(status.cache().maxBytes()).isEqualTo(1);
      assertThat(status.cache().evictions()).isPositive();
      assertThat(status.cache().bytes()).isLessThanOrEqualTo(1);
      try (var files = Files.list(cache)) {
        assertThat(files.filter(p -> p.toString().endsWith(".parquet"))).isEmpty();
      }
    }
  }

  /**
   * Two stores on one root (two processes, or two stores in one JVM): the second caches cold files
   * in a private directory, so its eviction never deletes files the first reads; a cache directory
   * the user named that is in use is refused.
   */
  @Test
  void twoStoresOnOneRoot_doNotShareAColdCacheDirectory() throws Exception {
    Path shared = root.resolve("cold-cache").toAbsolutePath().normalize();
    try (FeatureStore first = open()) {
      FeatureTable table = create(first, "shared", false);
      List<Long> snapshots = fourCommits(table, 1);
      Observed before = observe(table, snapshots.get(1));
      table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
      long cached = table.tiering().status().cache().files();
      assertThat(cached).isPositive();
      assertThat(first.unwrap(TieredFileIO.class).cacheDirectory()).isEqualTo(shared);
      Path privateCache;
      // the default directory, named: still the default, so a private one when in use
      try (FeatureStore second = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate())
          .coldCache(shared, 1).build()) {
        privateCache = second.unwrap(TieredFileIO.class).cacheDirectory();
        assertThat(privateCache.getParent()).isEqualTo(shared.resolve("private"));
        FeatureTable again = second.table(table.id());
        assertThat(observe(again, snapshots.get(1))).isEqualTo(before);
        assertThat(again.tiering().status().cache().evictions()).isPositive();
        // the first's cached files are all there, and serve its reads
        try (var files = Files.list(shared)) {
          assertThat(files.filter(p -> p.toString().endsWith(".parquet")).count()).isEqualTo(cached);
        }
        assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
        assertThat(table.tiering().status().cache().files()).isEqualTo(cached);
      }
      assertThat(privateCache).doesNotExist();
    }
    Path named = root.resolve("named-cache").toAbsolutePath().normalize();
    try (FeatureStore first = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).coldCache(named, 1 << 20)
        .build()) {
      assertThatThrownBy(() -> FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).coldCache(named, 1 << 20)
          .build())
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot open cold cache: directory in use by another store: " + named);
      assertThat(first.table(TableId.of("tiering", "shared")).query().count()).isPositive();
    }
  }

  @Test
  void storageFailingDuringCopy_leavesTableUnchanged_andNoColdCopies() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "copyfails", true);
      table.append(rows(1, 3)); // one commit, three files
      long snapshot = table.unwrap(Table.class).currentSnapshot().snapshotId();
      Observed before = observe(table, snapshot);
      List<String> hotFiles = liveFiles(table);
      s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains("2026-01-03"));

      assertThatThrownBy(() -> table.tiering().olderThan(Duration.ZERO).execute())
          .isInstanceOf(StorageException.class)
          .hasMessageStartingWith("Cannot tier table tiering.copyfails: ");

      s3.gate().failHard(seen -> false);
      assertThat(table.unwrap(Table.class).currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(liveFiles(table)).isEqualTo(hotFiles);
      hotFiles.forEach(f -> assertThat(Path.of(f)).exists());
      assertThat(s3.keys(coldPrefix("copyfails"))).isEmpty();
      assertThat(observe(table, snapshot)).isEqualTo(before);

      // once storage answers again, the same run succeeds
      assertThat(table.tiering().olderThan(Duration.ZERO).execute().filesMoved()).isEqualTo(3);
      assertThat(observe(table, snapshot)).isEqualTo(before);
    }
  }

  @Test
  void commitFailing_deletesColdCopies_andLeavesTableAsTheConcurrentWriterLeftIt() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "conflict", false);
      List<Long> snapshots = fourCommits(table, 1);
      Table iceberg = table.unwrap(Table.class);
      String victim = liveFiles(table).get(0);
      TieringOperation op = tiering(table);
      // another writer removes one of the planned files between the copy and the commit
      op.beforeCommit = batch -> {
        if (batch == 0) {
          iceberg.refresh();
          iceberg.newDelete().deleteFile(victim).commit();
        }
      };
      op.filesPerCommit(50).olderThan(Duration.ZERO);
      long concurrent;
      assertThatThrownBy(op::execute)
          .isInstanceOf(CommitConflictException.class)
          .hasMessageStartingWith("Cannot tier table tiering.conflict: a concurrent commit conflicts: ");
      iceberg.refresh();
      concurrent = iceberg.currentSnapshot().snapshotId();
      assertThat(iceberg.currentSnapshot().operation()).isEqualTo("delete");
      assertThat(liveFiles(table)).allSatisfy(f -> assertThat(f).doesNotStartWith("s3://"));
      assertThat(s3.keys(coldPrefix("conflict"))).isEmpty();
      assertThat(table.query().count()).isEqualTo(150);
      assertThat(table.query().asOfSnapshot(snapshots.get(3)).count()).isEqualTo(200);

      assertThat(table.tiering().olderThan(Duration.ZERO).execute().filesMoved()).isEqualTo(3);
      assertThat(iceberg.snapshot(concurrent)).isNotNull();
      assertThat(table.query().count()).isEqualTo(150);
    }
  }

  @Test
  void crashAfterCommit_beforeHotDelete_leavesReadableTable_andNextRunDeletesTheHotLeftovers() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "crash", false);
      List<Long> snapshots = fourCommits(table, 1);
      Observed before = observe(table, snapshots.get(0));
      List<String> hotFiles = liveFiles(table);
      TieringOperation op = tiering(table);
      op.afterCommit = batch -> {
        throw new IllegalStateException("simulated crash after commit " + batch);
      };
      assertThatThrownBy(() -> op.olderThan(Duration.ZERO).execute()).hasMessage("simulated crash after commit 0");

      // the first batch is committed, its hot copy is still there: both reads agree
      assertThat(liveFiles(table).stream().filter(f -> f.startsWith("s3://"))).hasSize(1);
      hotFiles.forEach(f -> assertThat(Path.of(f)).exists());
      assertThat(observe(table, snapshots.get(0))).isEqualTo(before);

      TieringResult next = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(next.hotLeftoversDeleted()).isEqualTo(1);
      assertThat(next.filesMoved()).isEqualTo(3);
      hotFiles.forEach(f -> assertThat(Path.of(f)).doesNotExist());
      assertThat(observe(table, snapshots.get(0))).isEqualTo(before);
    }
  }

  @Test
  void unknownCommitOutcome_thatLanded_isFoundByReadingTheTable_andFinishesTheMove() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "unknown_landed", false);
      List<Long> snapshots = fourCommits(table, 1);
      Observed before = observe(table, snapshots.get(1));
      TieringOperation op = tiering(table);
      op.commitAction = rewrite -> {
        rewrite.commit();
        throw new org.apache.iceberg.exceptions.CommitStateUnknownException(new RuntimeException("response lost"));
      };
      TieringResult moved = op.olderThan(Duration.ZERO).execute();
      assertThat(moved.filesMoved()).isEqualTo(4);
      assertThat(moved.commits()).isEqualTo(4);
      Table iceberg = table.unwrap(Table.class);
      for (long id : moved.snapshotIds()) {
        assertThat(iceberg.snapshot(id).operation()).isEqualTo("replace");
      }
      assertThat(liveFiles(table)).allSatisfy(f -> assertThat(f).startsWith("s3://"));
      assertThat(s3.keys(coldPrefix("unknown_landed"))).hasSize(4);
      assertThat(observe(table, snapshots.get(1))).isEqualTo(before);
    }
  }

  @Test
  void unknownCommitOutcome_thatDidNotLand_deletesColdCopies_andLeavesTableUnchanged() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "unknown_lost", false);
      List<Long> snapshots = fourCommits(table, 1);
      List<String> hotFiles = liveFiles(table);
      TieringOperation op = tiering(table);
      op.commitAction = rewrite -> {
        throw new org.apache.iceberg.exceptions.CommitStateUnknownException(new RuntimeException("catalog unreachable"));
      };
      assertThatThrownBy(() -> op.olderThan(Duration.ZERO).execute())
          .isInstanceOf(CommitConflictException.class)
          .hasMessage("Cannot tier table tiering.unknown_lost: commit outcome was unknown and the table shows it did not"
              + " land; nothing changed, run again");
      assertThat(table.unwrap(Table.class).currentSnapshot().snapshotId()).isEqualTo(snapshots.get(3));
      assertThat(liveFiles(table)).isEqualTo(hotFiles);
      assertThat(s3.keys(coldPrefix("unknown_lost"))).isEmpty();
    }
  }

  @Test
  void equalityDeletesStillApplyAfterTheMove_andFilesWithPositionDeletesAreSkipped() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "deletes", false);
      List<Long> snapshots = fourCommits(table, 1);
      Table iceberg = table.unwrap(Table.class);
      Schema keyOnly = iceberg.schema().select("entity_id");
      GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(iceberg)
          .equalityFieldIds(new int[] {1}).equalityDeleteRowSchema(keyOnly).build();
      EqualityDeleteWriter<Record> equality = writers.newEqualityDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(
          iceberg.io().newOutputFile(iceberg.location() + "/data/eq-delete.parquet")), iceberg.spec(), null);
      try (equality) {
        equality.write(GenericRecord.create(keyOnly).copy(Map.of("entity_id", 1005L)));
      }
      String last = iceberg.snapshot(snapshots.get(3)).addedDataFiles(iceberg.io()).iterator().next().location();
      PositionDeleteWriter<Record> position = writers.newPositionDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(
          iceberg.io().newOutputFile(iceberg.location() + "/data/pos-delete.parquet")), iceberg.spec(), null);
      try (position) {
        position.write(PositionDelete.<Record>create().set(last, 0L));
      }
      iceberg.newRowDelta().addDeletes(equality.toDeleteFile()).addDeletes(position.toDeleteFile()).commit();
      List<Map<String, Object>> before = sorted(table.query()::execute);
      assertThat(before).hasSize(198);
      assertThat(table.lookup("entity_id").get(1005L).row()).isEmpty();

      TieringResult moved = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(moved.filesMoved()).isEqualTo(3);
      assertThat(moved.skipped()).containsExactly(
          new TieringResult.SkippedFile(last, "position deletes point at it: compact first"));
      assertThat(sorted(table.query()::execute)).isEqualTo(before);
      assertThat(table.lookup("entity_id").get(1005L).row()).isEmpty();
      assertThat(table.lookup("entity_id").get(1006L).row()).isPresent();
      assertThat(table.query().filter(Expressions.equal("entity_id", 1005L)).count()).isZero();
    }
  }

  @Test
  void storeWithoutColdStorage_refusesToTier() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(root).build()) {
      FeatureTable table = create(store, "nocold", false);
      table.append(rows(0, 1));
      assertThatThrownBy(() -> table.tiering().olderThan(Duration.ZERO).execute())
          .isInstanceOf(ValidationException.class)
          .hasMessage("Cannot tier table tiering.nocold: the store has no cold storage: set coldStorage(...) on the store builder");
    }
  }

  @Test
  void run_withoutAThreshold_fails_andIsSingleUse() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "single", false);
      var op = table.tiering();
      assertThatThrownBy(op::execute)
          .isInstanceOf(ValidationException.class)
          .hasMessage("Cannot tier table tiering.single: no age threshold: set olderThan(age)");
      assertThatThrownBy(op::dryRun)
          .isInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot execute tiering of table tiering.single: already executed");
      assertThatThrownBy(() -> table.tiering().filesPerCommit(0))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot tier table: files per commit must be at least 1: 0");
      assertThat(table.tiering().olderThan(Duration.ZERO).execute().filesMoved()).isZero(); // empty table
    }
  }

  @Test
  void configuration_isCheckedAtBuild() {
    assertThatThrownBy(() -> FeatureStore.builder().root(root).coldCache(root.resolve("c"), 10).config())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot configure feature store: coldCache(...) needs coldStorage(...)");
    assertThatThrownBy(() -> FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate())
        .coldStorage(s3.b2ThroughGate()).config())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot configure feature store: cold storage is the hot warehouse: use another bucket or key prefix: "
            + S3TestServer.BUCKET);
    assertThatThrownBy(() -> FeatureStore.builder().restCatalog("http://127.0.0.1:1/catalog")
        .coldStorage(s3.b2ThroughGate()).config())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot configure feature store: cold storage needs the embedded or JDBC catalog (they read through the store's FileIO)");
    assertThatThrownBy(() -> FeatureStore.builder().root(root).coldCache(root, 0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set cold cache: size bound must be positive: 0");
    assertThat(FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).config().coldCacheDirectory())
        .contains(root.resolve("cold-cache"));
  }

  @Test
  void expiringTheSnapshotsThatNamedHotPaths_keepsColdFiles() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = create(store, "expire", false);
      fourCommits(table, 1);
      table.tiering().olderThan(Duration.ZERO).execute();
      table.maintenance().expireSnapshots().retainLast(1).execute();
      assertThat(s3.keys(coldPrefix("expire"))).hasSize(4);
      assertThat(table.query().count()).isEqualTo(200);
      AtomicBoolean found = new AtomicBoolean(table.lookup("entity_id").get(2010L).row().isPresent());
      assertThat(found).isTrue();
    }
  }
}
