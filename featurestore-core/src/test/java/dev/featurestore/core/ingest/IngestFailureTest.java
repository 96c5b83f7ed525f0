package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.currentSnapshotId;
import static dev.featurestore.core.ingest.IngestTestSupport.dataFilesOnDisk;
import static dev.featurestore.core.ingest.IngestTestSupport.events;
import static dev.featurestore.core.ingest.IngestTestSupport.read;
import static dev.featurestore.core.ingest.IngestTestSupport.readSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.StorageException;
import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failing storage, a locked catalog, and concurrent writers. */
class IngestFailureTest {
  @TempDir Path dir;

  /** Delegates to LocalFileIO; fails creating the Nth data file from now on, or any metadata.json. */
  static final class FailingFileIO extends ForwardingFileIO {
    final AtomicInteger dataFilesUntilFailure = new AtomicInteger(Integer.MAX_VALUE);
    volatile boolean failMetadata;

    FailingFileIO() {
      super(new LocalFileIO(), Ownership.OWNED);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      if (path.contains("/data/") && dataFilesUntilFailure.decrementAndGet() == 0) {
        throw new UncheckedIOException(new IOException("injected failure: " + path.substring(path.lastIndexOf('/') + 1)));
      }
      if (failMetadata && path.endsWith(".metadata.json")) {
        throw new UncheckedIOException(new IOException("injected metadata failure"));
      }
      return super.newOutputFile(path);
    }
  }

  @Test
  void failingDataFileWrite_isStorageException_previousSnapshotIntact_noOrphans() {
    FailingFileIO io = new FailingFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir).fileIO(io).build()) {
      FeatureTable table = store.createTable(events());
      table.ingest().synthetic(1_000, 1).commit();
      long before = currentSnapshotId(table);
      List<Record> rowsBefore = read(table);
      List<Path> filesBefore = dataFilesOnDisk(table);

      io.dataFilesUntilFailure.set(3); // 7 day partitions: the third file fails
      assertThatThrownBy(() -> table.ingest().synthetic(1_000, 2).commit())
          .isInstanceOf(StorageException.class)
          .hasMessageStartingWith("Cannot ingest into table features.feature_events: storage failed: ")
          .hasMessageContaining("injected failure");

      assertThat(currentSnapshotId(table)).isEqualTo(before);
      assertThat(readSnapshot(table, before)).isEqualTo(rowsBefore);
      assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
    }
  }

  @Test
  void failingParallelSyntheticWrite_cleansUpEveryWriter() {
    FailingFileIO io = new FailingFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir).fileIO(io).build()) {
      FeatureTable table = store.createTable(events());
      io.dataFilesUntilFailure.set(10); // two writers x 7 partitions: fails in the middle
      assertThatThrownBy(() -> table.ingest().synthetic(SyntheticWriter.PARALLEL_ROWS, 2).commit())
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("injected failure");
      assertThat(currentSnapshotId(table)).isEqualTo(-1);
      assertThat(dataFilesOnDisk(table)).isEmpty();
    }
  }

  @Test
  void failingMetadataWrite_isStorageException_noOrphanDataFiles() {
    FailingFileIO io = new FailingFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir).fileIO(io).build()) {
      FeatureTable table = store.createTable(events());
      table.ingest().synthetic(500, 1).commit();
      long before = currentSnapshotId(table);
      List<Record> rowsBefore = read(table);
      List<Path> filesBefore = dataFilesOnDisk(table);

      io.failMetadata = true;
      assertThatThrownBy(() -> table.ingest().synthetic(500, 2).commit())
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("injected metadata failure");
      io.failMetadata = false;

      assertThat(currentSnapshotId(table)).isEqualTo(before);
      assertThat(read(table)).isEqualTo(rowsBefore);
      assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
    }
  }

  @Test
  void lockedCatalog_commitFails_typed_tableReadsPreviousSnapshot() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir)
        .busyTimeout(Duration.ofMillis(200)).commitRetries(1).build()) {
      FeatureTable table = store.createTable(events());
      table.ingest().synthetic(500, 1).commit();
      long before = currentSnapshotId(table);
      List<Record> rowsBefore = read(table);
      List<Path> filesBefore = dataFilesOnDisk(table);

      Throwable thrown;
      try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
          Statement statement = lock.createStatement()) {
        statement.execute("BEGIN EXCLUSIVE");
        thrown = org.assertj.core.api.Assertions.catchThrowable(() -> table.ingest().synthetic(500, 2).commit());
        statement.execute("ROLLBACK");
      }

      // SQLite answered SQLITE_BUSY to the catalog UPDATE: a commit failure (nothing landed, files deleted),
      // not an unknown outcome
      assertThat(thrown)
          .isInstanceOf(CommitConflictException.class)
          .hasMessage("Cannot commit ingest to table features.feature_events: the catalog is locked by another writer: "
              + "[SQLITE_BUSY] The database file is locked (database is locked)");
      assertThat(currentSnapshotId(table)).isEqualTo(before);
      assertThat(readSnapshot(table, before)).isEqualTo(rowsBefore);
      assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
      // the store still works once the lock is gone
      table.ingest().synthetic(10, 3).commit();
      assertThat(read(table)).hasSize(510);
    }
  }

  @Test
  void concurrentAppends_fourThreadsTimesTwentyFive_allLand() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(events());
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Long>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          long rows = 0;
          for (int i = 0; i < 25; i++) {
            int n = 1 + (thread * 25 + i) % 7;
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int k = 0; k < n; k++) {
              batch.add(Map.of("entity_id", thread * 1000 + i * 10 + k, "event_time", "2024-02-0" + (1 + k) + "T00:00:00Z",
                  "feature_a", k * 0.5));
            }
            rows += table.append(batch).rows();
          }
          return rows;
        }));
      }
      long expected = 0;
      for (Future<Long> f : results) {
        expected += f.get();
      }
      pool.shutdown();
      assertThat(IngestTestSupport.snapshotCount(table)).isEqualTo(100);
      assertThat(read(table)).hasSize((int) expected);
    }
  }
}
