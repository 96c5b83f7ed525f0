package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import dev.featurestore.StorageException;
import dev.featurestore.core.storage.LocalFileIO;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Failing storage, a locked catalog and unknown commit outcomes: retried, reported, nothing lost or doubled. */
class CdcFailureTest {
  @TempDir Path dir;

  private static LocalFileIO localIO() {
    LocalFileIO io = new LocalFileIO();
    io.initialize(Map.of());
    return io;
  }

  private CdcPipeline.Builder pipeline(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("f")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO).commitRetries(3).retryBackoff(Duration.ofMillis(1));
  }

  private static void write(CdcPipeline cdc, int from, int to) {
    for (int i = from; i <= to; i++) {
      cdc.insert("users", "u" + i, Map.of("id", "u" + i, "v", i));
    }
  }

  @Test
  void failingDataFileWrites_retried_thenLandOnce() {
    FailingFileIO io = new FailingFileIO(localIO());
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build();
        CdcPipeline cdc = pipeline(store).build()) {
      write(cdc, 1, 3);
      io.failures.set(2);

      FlushResult flushed = cdc.flush();

      assertThat(io.failed.get()).isEqualTo(2);
      assertThat(flushed.entries()).isEqualTo(3);
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(3);
    }
  }

  @Test
  void storageDownForEveryRetry_clearError_entriesKept_laterFlushLandsThemOnce() {
    FailingFileIO io = new FailingFileIO(localIO());
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build();
        CdcPipeline cdc = pipeline(store).build()) {
      write(cdc, 1, 3);
      io.failures.set(-1);

      Throwable thrown = catchThrowable(cdc::flush);

      assertThat(thrown).isInstanceOf(StorageException.class)
          .hasMessageStartingWith("Cannot commit CDC batch (sequences 1..3) to table cdc.events after 3 attempts;"
              + " the entries stay in the write-ahead log: Cannot commit CDC batch to table cdc.events: storage failed:")
          .hasMessageContaining("injected: disk full");
      assertThat(cdc.metrics().pending()).isEqualTo(3);
      assertThat(cdc.metrics().lastError()).isPresent();
      write(cdc, 4, 5);

      io.failures.set(0);
      FlushResult flushed = cdc.flush();

      assertThat(flushed.entries()).isEqualTo(5);
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(5);
      assertThat(cdc.metrics().lastError()).isEmpty();
    }
  }

  @Test
  void storageDown_closeFails_restartWithHealthyStorage_landsOnce() {
    FailingFileIO io = new FailingFileIO(localIO());
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(io).build()) {
      CdcPipeline cdc = pipeline(store).build();
      write(cdc, 1, 4);
      io.failures.set(-1);
      assertThatThrownBy(cdc::close).isInstanceOf(StorageException.class);
      io.failures.set(0);

      try (CdcPipeline reopened = pipeline(store).build()) {
        assertThat(reopened.recoveredEntries()).isEqualTo(4);
        reopened.flush();
        assertThat(reopened.insert("users", "u5", Map.of("v", 5))).isEqualTo(5);
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
    }
  }

  @Test
  void lockedCatalog_commitFailsAsConflict_thenLandsOnceWhenUnlocked() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).busyTimeout(Duration.ofMillis(200))
            .commitRetries(1).build();
        CdcPipeline cdc = pipeline(store).commitRetries(2).build()) {
      write(cdc, 1, 3);
      Throwable thrown;
      try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("store").resolve("catalog.db"));
          Statement statement = lock.createStatement()) {
        statement.execute("BEGIN EXCLUSIVE");
        try {
          thrown = catchThrowable(cdc::flush);
        } finally {
          statement.execute("ROLLBACK");
        }
      }
      assertThat(thrown).isInstanceOf(CommitConflictException.class)
          .hasMessageStartingWith("Cannot commit CDC batch (sequences 1..3) to table cdc.events after 2 attempts;")
          .hasMessageContaining("the catalog is locked by another writer");
      assertThat(CdcTestSupport.sequences(store, LOG)).isEmpty();

      cdc.flush();

      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(3);
    }
  }

  @ParameterizedTest
  @EnumSource(value = UnknownOutcomeCatalog.Next.class, names = {"LANDED", "LOST"})
  void unknownCommitOutcome_resolvedByReadingTheMark_neverDoubled(UnknownOutcomeCatalog.Next outcome) {
    LocalFileIO io = localIO();
    UnknownOutcomeCatalog catalog = new UnknownOutcomeCatalog(io, dir.resolve("store"));
    try (FeatureStore store = FeatureStore.builder().catalog(catalog).fileIO(io).build();
        CdcPipeline cdc = pipeline(store).withoutShardLease().build()) { // a custom catalog has no lease database
      write(cdc, 1, 3);
      cdc.flush();
      write(cdc, 4, 6);
      catalog.next.set(outcome);

      FlushResult flushed = cdc.flush();

      assertThat(flushed.lastSequence()).hasValue(6);
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
      assertThat(CdcTestSupport.state(store, STATE)).hasSize(6);
      assertThat(cdc.marks()).containsEntry("cdc.events", 6L).containsEntry("cdc.docs", 6L);
    } finally {
      catalog.close();
    }
  }
}
