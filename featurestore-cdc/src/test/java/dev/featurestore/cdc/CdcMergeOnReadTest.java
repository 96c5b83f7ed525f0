package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge-on-read current state: updates append and mark the old row in a deletion vector,
 * deletes only mark; the key index is a cache of the table (rebuilt when missing or for another
 * snapshot, caught up after foreign commits, compaction and expiry); copy-on-write stays an
 * option and an existing table keeps its layout.
 */
class CdcMergeOnReadTest {
  @TempDir Path dir;

  /** Counts the key-index hook points of one pipeline. */
  static final class IndexEvents implements Hooks {
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void at(String point) {
      counts.computeIfAbsent(point, p -> new AtomicInteger()).incrementAndGet();
    }

    int rebuilt() {
      return count("key-index.rebuilt");
    }

    int caughtUp() {
      return count("key-index.caught-up");
    }

    int count(String point) {
      AtomicInteger n = counts.get(point);
      return n == null ? 0 : n.get();
    }
  }

  private CdcPipeline.Builder pipeline(FeatureStore store, String shard) {
    return CdcPipeline.builder(store).currentState(STATE).shardId(shard).writeAheadLog(dir.resolve("wal"))
        .batchSize(1_000).flushInterval(Duration.ZERO).retryBackoff(Duration.ofMillis(5));
  }

  private static Map<String, Object> doc(int id, int version) {
    return Map.of("id", id, "v", version);
  }

  /** collection/doc_id to v, failing on a duplicate row. */
  static Map<String, Integer> versions(FeatureStore store) {
    Map<String, Integer> state = new TreeMap<>();
    CdcTestSupport.state(store, STATE).forEach((k, r) -> state.put(k, ((Number) r.getField("v")).intValue()));
    return state;
  }

  private static List<FileScanTask> tasks(Table table) {
    table.refresh();
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  @Test
  void newTable_isFormat3Unpartitioned_updateAppendsAndMarksTheOldRowInADeletionVector() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store, "a").build()) {
        for (int i = 0; i < 5; i++) {
          cdc.insert("users", "u" + i, doc(i, 0));
        }
        cdc.flush();
        cdc.update("users", "u1", doc(1, 1));
        cdc.delete("users", "u2");
        FlushResult second = cdc.flush();
        assertThat(second.dataFiles()).as("one data file (the vectors are delete files)").singleElement()
            .satisfies(f -> assertThat(f).endsWith(".parquet"));
      }
      Table table = store.table(STATE).unwrap(Table.class);
      assertThat(table.currentSnapshot().addedDeleteFiles(table.io())).as("one Puffin file of vectors").singleElement()
          .satisfies(f -> assertThat(f.location()).endsWith(".puffin"));
      assertThat(TableUtil.formatVersion(table)).isEqualTo(3);
      assertThat(table.spec().isUnpartitioned()).isTrue();
      assertThat(table.properties()).containsEntry(CurrentStateLayout.PROPERTY, "merge-on-read");
      Snapshot last = table.currentSnapshot();
      assertThat(last.addedDataFiles(table.io())).singleElement().satisfies(f -> assertThat(f.recordCount()).isEqualTo(1));
      assertThat(last.addedDeleteFiles(table.io())).singleElement().satisfies(d -> {
        assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
        assertThat(d.format()).isEqualTo(FileFormat.PUFFIN);
        assertThat(d.recordCount()).as("u1's old row and u2").isEqualTo(2);
      });
      assertThat(versions(store)).containsExactly(Map.entry("users/u0", 0), Map.entry("users/u1", 1),
          Map.entry("users/u3", 0), Map.entry("users/u4", 0));
    }
  }

  @Test
  void aDataFileKeepsOneDeletionVector_andNoEqualityDeletesAreEverWritten() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = pipeline(store, "a").build()) {
      for (int i = 0; i < 20; i++) {
        cdc.insert("users", "u" + i, doc(i, 0));
      }
      cdc.flush();
      for (int round = 1; round <= 5; round++) {
        cdc.update("users", "u" + round, doc(round, round));
        cdc.flush();
      }
      Table table = store.table(STATE).unwrap(Table.class);
      for (FileScanTask task : tasks(table)) {
        assertThat(task.deletes()).hasSizeLessThanOrEqualTo(1);
        for (DeleteFile d : task.deletes()) {
          assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
        }
      }
      assertThat(versions(store)).hasSize(20).containsEntry("users/u3", 3).containsEntry("users/u7", 0);
    }
  }

  @Test
  void copyOnWrite_asAnOption_writesNoDeleteFiles_andAnExistingTableKeepsItsLayout() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store, "a").currentStateLayout(CurrentStateLayout.COPY_ON_WRITE).build()) {
        cdc.insert("users", "u1", doc(1, 0));
        cdc.insert("users", "u2", doc(2, 0));
        cdc.flush();
      }
      // opened again with the default (merge-on-read): the table stays copy-on-write
      try (CdcPipeline cdc = pipeline(store, "a").build()) {
        cdc.update("users", "u1", doc(1, 1));
        cdc.delete("users", "u2");
        cdc.flush();
      }
      Table table = store.table(STATE).unwrap(Table.class);
      assertThat(table.properties()).containsEntry(CurrentStateLayout.PROPERTY, "copy-on-write");
      assertThat(table.spec().isUnpartitioned()).isFalse();
      assertThat(tasks(table)).allSatisfy(t -> assertThat(t.deletes()).isEmpty());
      assertThat(versions(store)).containsExactly(Map.entry("users/u1", 1));
    }
  }

  @Test
  void aTableWithoutTheLayoutProperty_isCopyOnWrite() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      // as a pipeline before layouts created it
      store.createTable(TableDefinition.builder(STATE, CdcTables.currentStateSchema())
          .partitionSpec(CdcTables.currentStateSpec(CdcTables.currentStateSchema(), 4)).build());
      try (CdcPipeline cdc = pipeline(store, "a").build()) {
        cdc.insert("users", "u1", doc(1, 0));
        cdc.flush();
        cdc.update("users", "u1", doc(1, 1));
        cdc.flush();
      }
      assertThat(tasks(store.table(STATE).unwrap(Table.class))).allSatisfy(t -> assertThat(t.deletes()).isEmpty());
      assertThat(versions(store)).containsExactly(Map.entry("users/u1", 1));
    }
  }

  @Test
  void keyIndex_builtWhenMissing_thenKeptByOwnCommitsWithoutRebuilding() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store, "a").build()) {
        for (int i = 0; i < 50; i++) {
          cdc.insert("users", "u" + i, doc(i, 0));
        }
        cdc.flush();
      }
      IndexEvents events = new IndexEvents();
      try (CdcPipeline cdc = pipeline(store, "a").hooks(events).build()) {
        for (int round = 1; round <= 4; round++) {
          for (int i = 0; i < 50; i += round) {
            cdc.update("users", "u" + i, doc(i, round));
          }
          cdc.flush();
        }
      }
      assertThat(events.rebuilt()).as("the restarted pipeline had no index: built once").isEqualTo(1);
      assertThat(events.caughtUp()).as("own commits need no catch-up").isZero();
      Map<String, Integer> state = versions(store);
      assertThat(state).hasSize(50).containsEntry("users/u0", 4).containsEntry("users/u1", 1)
          .containsEntry("users/u2", 2).containsEntry("users/u3", 3).containsEntry("users/u6", 3);
    }
  }

  @Test
  void keyIndex_caughtUpAfterAForeignCommitOfAnotherShard() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      IndexEvents events = new IndexEvents();
      try (CdcPipeline a = pipeline(store, "a").hooks(events).build()) {
        for (int i = 0; i < 10; i++) {
          a.insert("users", "u" + i, doc(i, 0));
        }
        a.flush();
        try (FeatureStore other = FeatureStore.openLocal(dir.resolve("store"));
            CdcPipeline b = pipeline(other, "b").build()) {
          b.update("users", "u1", doc(1, 10)); // a row a's index does not know
          b.delete("users", "u2");
          b.insert("users", "u20", doc(20, 10));
          b.flush();
        }
        a.update("users", "u1", doc(1, 11)); // must mark b's row, not only its own old one
        a.update("users", "u20", doc(20, 11));
        a.insert("users", "u2", doc(2, 11));
        a.flush();
      }
      assertThat(events.caughtUp()).isEqualTo(1);
      assertThat(events.rebuilt()).as("only the first, empty table").isLessThanOrEqualTo(1);
      assertThat(versions(store)).hasSize(11).containsEntry("users/u1", 11).containsEntry("users/u20", 11)
          .containsEntry("users/u2", 11).containsEntry("users/u3", 0);
    }
  }

  @Test
  void keyIndex_afterCompactionAndExpiry_andAfterARollback() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      IndexEvents events = new IndexEvents();
      try (CdcPipeline cdc = pipeline(store, "a").hooks(events).build()) {
        for (int round = 0; round < 4; round++) {
          for (int i = 0; i < 30; i++) {
            cdc.update("users", "u" + i, doc(i, round));
          }
          cdc.flush();
        }
        FeatureTable table = store.table(STATE);
        table.maintenance().compact().execute(); // folds the vectors into new files
        int caughtUp = events.caughtUp();
        for (int i = 0; i < 30; i += 2) {
          cdc.update("users", "u" + i, doc(i, 10));
        }
        cdc.flush();
        assertThat(events.caughtUp()).as("after the compaction").isEqualTo(caughtUp + 1);
        assertThat(versions(store)).hasSize(30).containsEntry("users/u0", 10).containsEntry("users/u1", 3);

        table.maintenance().expireSnapshots().retainLast(1).execute(); // the index's snapshot stays the current one
        cdc.delete("users", "u1");
        cdc.flush();
        assertThat(versions(store)).hasSize(29).doesNotContainKey("users/u1");

        // a rollback: the index's snapshot is no longer an ancestor of the current one
        Table iceberg = table.unwrap(Table.class);
        iceberg.refresh();
        long beforeUpdate = iceberg.currentSnapshot().snapshotId();
        cdc.update("users", "u5", doc(5, 20));
        cdc.flush();
        table.snapshots().rollbackTo(beforeUpdate); // undoes u5's update
        int rebuilt = events.rebuilt();
        cdc.update("users", "u6", doc(6, 20));
        cdc.flush();
        assertThat(events.rebuilt()).isEqualTo(rebuilt + 1);
      }
      Map<String, Integer> state = versions(store);
      assertThat(state).hasSize(29).containsEntry("users/u5", 3).containsEntry("users/u6", 20).containsEntry("users/u0", 10);
    }
  }

  @Test
  void twoShards_updatingTheSameDocumentsConcurrently_keepOneRowPerDocument() throws Exception {
    try (FeatureStore setup = FeatureStore.openLocal(dir.resolve("store"))) {
      pipeline(setup, "setup").build().close();
    }
    int docs = 40;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> futures = new ArrayList<>();
    for (String shard : List.of("s0", "s1")) {
      futures.add(pool.submit(() -> {
        try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
            CdcPipeline cdc = pipeline(store, shard).batchSize(15).commitRetries(50).build()) {
          for (int round = 0; round < 3; round++) {
            for (int i = 0; i < docs; i++) {
              cdc.update("users", "u" + i, Map.of("v", round, "shard", shard));
            }
            cdc.flush();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      Map<String, Record> state = CdcTestSupport.state(store, STATE); // fails on a duplicate
      assertThat(state).hasSize(docs);
      assertThat(state.values()).allSatisfy(r -> assertThat(r.getField("v")).isEqualTo(2));
      Table table = store.table(STATE).unwrap(Table.class);
      assertThat(CdcTables.readMark(table, "s0")).hasValue(docs * 3L);
      assertThat(CdcTables.readMark(table, "s1")).hasValue(docs * 3L);
    }
  }

  /** The data files of the table's current snapshot (for tests that look at positions). */
  static List<DataFile> dataFiles(Table table) {
    return tasks(table).stream().map(FileScanTask::file).toList();
  }
}
