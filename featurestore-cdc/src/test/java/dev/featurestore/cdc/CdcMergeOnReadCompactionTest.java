package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.CompactionResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.StorageException;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction of the merge-on-read current state while the stream writes to it: the rows the
 * stream updates or deletes while the compaction rewrites their files are carried over to the new
 * files in the compaction's commit (the stream waits only for that commit), so the compaction
 * lands however busy the stream; the stream's key index follows it through the compaction's row
 * moves; and after every commit every reader sees the last image of every live document. On
 * format 2 (position-delete files) and format 3 (deletion vectors).
 */
class CdcMergeOnReadCompactionTest {
  private static final int DOCS = 40; // CdcMergeOnReadPropertyTest.assertEveryReader looks these up

  @TempDir Path dir;

  /** The local FileIO, holding a compaction's thread at its first output file until released. */
  static final class GateIO extends OutputInterceptingFileIO {
    volatile CountDownLatch reached = new CountDownLatch(1);
    volatile CountDownLatch release = new CountDownLatch(1);

    GateIO() {
      super(new LocalFileIO());
    }

    @Override
    void beforeOutputFile(String path) {
      if (Thread.currentThread().getName().startsWith("test-compaction") && path.contains("compact-")) {
        CountDownLatch r = release;
        if (r.getCount() > 0) {
          reached.countDown();
          try {
            assertThat(r.await(2, TimeUnit.MINUTES)).as("released").isTrue();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    }
  }

  private static String docId(int d) {
    return "c" + (d % 2) + "-d" + d;
  }

  private static void createState(FeatureStore store, int format) {
    store.createTable(TableDefinition.builder(STATE, CdcTables.currentStateSchema()).formatVersion(format)
        .property(CurrentStateLayout.PROPERTY, CurrentStateLayout.MERGE_ON_READ.value()).build());
  }

  /** A random batch over all documents: updates, deletes, re-inserts; applied to the model. */
  private static int batch(CdcPipeline cdc, Random random, Map<String, Integer> model, int version) {
    int size = 1 + random.nextInt(10);
    int v = version;
    for (int i = 0; i < size; i++) {
      int d = random.nextInt(DOCS);
      String collection = "c" + (d % 2);
      String key = collection + "/" + docId(d);
      if (random.nextInt(10) < 3 && model.containsKey(key)) {
        cdc.delete(collection, docId(d));
        model.remove(key);
      } else {
        v++;
        cdc.createEntry(model.containsKey(key) ? "update" : "insert", collection, docId(d), null, Map.of("v", v, "d", d));
        model.put(key, v);
      }
    }
    cdc.flush();
    return v;
  }

  /**
   * Forced interleaving: a compaction plans, then waits at its first output file while the stream
   * commits batches that update and delete documents whose rows it is rewriting; released, it
   * lands with those deletes carried over, and every reader sees the model after every commit.
   */
  @ParameterizedTest(name = "format {0}, seed {1}")
  @CsvSource({"2, 1", "3, 2"})
  void stream_commitsDuringACompaction_areCarriedOver_andEveryReaderSeesTheLastImages(int format, long seed)
      throws Exception {
    Random random = new Random(seed);
    Map<String, Integer> model = new TreeMap<>();
    GateIO io = new GateIO();
    CdcMergeOnReadTest.IndexEvents events = new CdcMergeOnReadTest.IndexEvents();
    long carried = 0;
    int compactions = 0;
    int version = 0;
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build()) {
      createState(store, format);
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(1_000).flushInterval(Duration.ZERO).withoutMaintenance().hooks(events).build()) {
        for (int round = 0; round < 6; round++) {
          for (int b = 0; b < 3; b++) {
            version = batch(cdc, random, model, version);
            CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
          }
          int rebuiltBefore = events.rebuilt();
          io.reached = new CountDownLatch(1);
          io.release = new CountDownLatch(1);
          CompletableFuture<CompactionResult> compaction = startCompaction(store, "test-compaction-" + round);
          assertThat(io.reached.await(2, TimeUnit.MINUTES)).as("compaction started writing").isTrue();
          int filesAtStart = dataFiles(store).size();
          int during = 1 + random.nextInt(3);
          for (int b = 0; b < during; b++) {
            version = batch(cdc, random, model, version); // its old rows are in files being rewritten
            CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
          }
          io.release.countDown();
          CompactionResult result = compaction.get(2, TimeUnit.MINUTES);
          compactions++;
          carried += result.carriedDeletes();
          assertThat(result.rewrittenDataFiles()).isEqualTo(filesAtStart);
          // the compacted file and the stream's files since it started (a batch of deletes only writes none)
          assertThat(dataFiles(store)).hasSizeBetween(1, 1 + during)
              .anyMatch(f -> f.location().contains("compact-"));
          CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
          // the stream's next commit follows the compaction through its row moves
          version = batch(cdc, random, model, version);
          CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
          assertThat(events.count("key-index.moved")).as("index moved, not re-read").isEqualTo(compactions);
          assertThat(events.rebuilt()).as("no rebuild").isEqualTo(rebuiltBefore);
        }
        assertThat(cdc.metrics().lastError()).isEmpty();
      }
      assertThat(carried).as("deletes carried over").isPositive();
      Table table = store.table(STATE).unwrap(Table.class);
      table.refresh();
      assertThat(TableUtil.formatVersion(table)).isEqualTo(format);
      assertThat(replaceSnapshotsWithDeletes(table)).as("compactions that carried deletes over").isPositive();
      // a fresh index, built from the table
      try (CdcPipeline again = CdcPipeline.builder(store).currentState(STATE).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(1_000).flushInterval(Duration.ZERO).withoutMaintenance().build()) {
        CdcMergeOnReadPropertyTest.updateEveryThird(again, model, version);
      }
      CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
    }
  }

  /**
   * A stream of updates spread over all documents with background maintenance on and aggressive
   * thresholds: compaction lands again and again (on main it lost every round to the stream's
   * vectors), the data files stay bounded, and after every commit every reader sees the model.
   */
  @ParameterizedTest(name = "format {0}")
  @ValueSource(ints = {2, 3})
  void busyStream_withBackgroundMaintenance_compactionLands_andEveryCommitReadsRight(int format) throws Exception {
    Random random = new Random(format);
    Map<String, Integer> model = new TreeMap<>();
    MaintenancePolicy policy = MaintenancePolicy.builder().checkEvery(Duration.ofMillis(50))
        .leaseDuration(Duration.ofSeconds(30)).compactWhenSmallFilesAtLeast(5).rewriteManifestsWhenAtLeast(1_000)
        .expireWhenSnapshotsAtLeast(1_000).removeOrphans(false).build();
    int version = 0;
    int commits = 0;
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      createState(store, format);
      List<BackgroundMaintenanceStatus> statuses;
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(1_000).flushInterval(Duration.ZERO).maintenance(policy).build()) {
        while (commits < 400 && (commits < 60 || compactionsLanded(store) < 3)) {
          version = batch(cdc, random, model, version);
          commits++;
          CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
        }
        assertThat(cdc.metrics().lastError()).isEmpty();
        statuses = cdc.maintenance();
      }
      assertThat(compactionsLanded(store)).as("compactions landed during %s commits", commits).isGreaterThanOrEqualTo(3);
      assertThat(statuses.get(0).dataFilesCompacted()).isPositive();
      assertThat(dataFiles(store).size()).as("data files after %s commits", commits).isLessThan(commits / 2);
      CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
    }
  }

  /**
   * The compaction's commit ends in an unknown outcome: it checks the table instead of retrying.
   * Landed: the compaction succeeded (deletes carried over). Lost: its files are deleted, the table
   * is as it was, and the stream goes on either way with every reader seeing the model.
   */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(value = UnknownOutcomeCatalog.Next.class, names = {"LANDED", "LOST"})
  void compactionCommitWithUnknownOutcome_isCheckedInTheTable_neverRetriedBlindly(UnknownOutcomeCatalog.Next outcome)
      throws Exception {
    Random random = new Random(7);
    Map<String, Integer> model = new TreeMap<>();
    GateIO io = new GateIO();
    UnknownOutcomeCatalog catalog = new UnknownOutcomeCatalog(io, dir.resolve("store"));
    int version = 0;
    try (FeatureStore store = FeatureStore.builder().catalog(catalog).fileIO(io).build()) {
      createState(store, 3);
      try (CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).shardId("a").writeAheadLog(dir.resolve("wal"))
          .batchSize(1_000).flushInterval(Duration.ZERO).withoutMaintenance().withoutShardLease().build()) {
        for (int b = 0; b < 4; b++) {
          version = batch(cdc, random, model, version);
        }
        long before = store.table(STATE).unwrap(Table.class).currentSnapshot().snapshotId();
        CompletableFuture<CompactionResult> compaction = startCompaction(store, "test-compaction-unknown");
        assertThat(io.reached.await(2, TimeUnit.MINUTES)).isTrue();
        List<DataFile> filesBefore = dataFiles(store);
        for (int b = 0; b < 2; b++) {
          version = batch(cdc, random, model, version);
        }
        long streamed = store.table(STATE).unwrap(Table.class).currentSnapshot().snapshotId();
        assertThat(streamed).isNotEqualTo(before);
        List<DataFile> filesAtCommit = dataFiles(store);
        catalog.next.set(outcome); // the compaction's commit is the next one
        io.release.countDown();
        if (outcome == UnknownOutcomeCatalog.Next.LANDED) {
          CompactionResult result = compaction.get(2, TimeUnit.MINUTES);
          assertThat(result.carriedDeletes()).isPositive();
          assertThat(result.snapshotId()).isPresent();
          assertThat(dataFiles(store)).hasSizeLessThan(filesAtCommit.size());
        } else {
          assertThatThrownBy(() -> compaction.get(2, TimeUnit.MINUTES)).hasCauseInstanceOf(StorageException.class)
              .cause().hasMessageStartingWith("Cannot compact table cdc.docs: the commit's outcome was unknown and the "
                  + "table shows it did not land: ");
          Table table = store.table(STATE).unwrap(Table.class);
          table.refresh();
          assertThat(table.currentSnapshot().snapshotId()).isEqualTo(streamed);
          assertThat(CdcTestSupport.unreferencedDataFiles(store, STATE)).as("the compaction's files, deleted").isEmpty();
          assertThat(filesBefore).isNotEmpty();
        }
        CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
        version = batch(cdc, random, model, version);
        CdcMergeOnReadPropertyTest.assertEveryReader(store, model);
      }
    } finally {
      catalog.close();
    }
  }

  /** A compaction of every file of the state on its own thread (named for {@link GateIO}). */
  private static CompletableFuture<CompactionResult> startCompaction(FeatureStore store, String threadName) {
    CompletableFuture<CompactionResult> compaction = new CompletableFuture<>();
    new Thread(() -> {
      try {
        compaction.complete(store.table(STATE).maintenance().compact().minInputFiles(1).execute());
      } catch (Throwable e) {
        compaction.completeExceptionally(e);
      }
    }, threadName).start();
    return compaction;
  }

  private static int compactionsLanded(FeatureStore store) {
    Table table = store.table(STATE).unwrap(Table.class);
    table.refresh();
    int n = 0;
    for (Snapshot s : table.snapshots()) {
      if ("replace".equals(s.operation()) && s.removedDataFiles(table.io()).iterator().hasNext()) {
        n++;
      }
    }
    return n;
  }

  private static int replaceSnapshotsWithDeletes(Table table) {
    int n = 0;
    for (Snapshot s : table.snapshots()) {
      if ("replace".equals(s.operation()) && s.addedDeleteFiles(table.io()).iterator().hasNext()) {
        n++;
      }
    }
    return n;
  }

  private static List<DataFile> dataFiles(FeatureStore store) {
    Table table = store.table(STATE).unwrap(Table.class);
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return files;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
