package dev.featurestore.core;

import static dev.featurestore.core.testing.Await.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The busy timeout's job: a writer that meets SQLite's write lock, held by another connection for
 * less than the timeout, waits for it and then commits (with a single commit attempt, so no retry
 * hides the wait). {@link CatalogLockTest} is the other side: a lock held past the timeout fails.
 */
class CatalogBusyWaitTest {
  @TempDir Path dir;

  /** Whether {@code thread} is inside the catalog's commit (the UPDATE of the metadata location) in SQLite. */
  private static boolean inCatalogCommit(Thread thread) {
    StackTraceElement[] stack = thread.getStackTrace();
    boolean inSqlite = Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith("org.sqlite"));
    boolean committing = Arrays.stream(stack).anyMatch(f ->
        f.getClassName().equals("org.apache.iceberg.jdbc.JdbcTableOperations") && f.getMethodName().equals("doCommit"));
    return inSqlite && committing;
  }

  private <T> T whileLockedUntilItWaits(java.util.function.Supplier<T> write) throws Exception {
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
        Statement statement = lock.createStatement()) {
      Thread[] thread = new Thread[1];
      statement.execute("BEGIN EXCLUSIVE");
      CompletableFuture<T> result;
      try {
        result = CompletableFuture.supplyAsync(() -> {
          thread[0] = Thread.currentThread();
          return write.get();
        }, writer);
        awaitUntil("the writer waits on the catalog lock", Duration.ofSeconds(60),
            () -> result.isDone() || (thread[0] != null && inCatalogCommit(thread[0])));
        assertThat(result).as("the writer must still be waiting while the lock is held").isNotDone();
      } finally {
        statement.execute("ROLLBACK");
      }
      return result.get(60, TimeUnit.SECONDS);
    } finally {
      writer.shutdownNow();
    }
  }

  @Test
  void ingest_meetingAShortLock_waitsItOut_andCommits() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir).busyTimeout(Duration.ofSeconds(120)).commitRetries(1).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();

      IngestResult landed = whileLockedUntilItWaits(() -> table.ingest().synthetic(50, 2).commit());

      assertThat(landed.snapshotId()).isPresent();
      table.refresh();
      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(landed.snapshotId().getAsLong());
      assertThat(table.query().count()).isEqualTo(150);
    }
  }

  @Test
  void schemaChange_meetingAShortLock_waitsItOut_andCommits() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir).busyTimeout(Duration.ofSeconds(120)).commitRetries(1).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());

      whileLockedUntilItWaits(() -> table.evolveSchema().addColumn("feature_c", Types.DoubleType.get()).commit());

      table.refresh();
      assertThat(table.schema().findField("feature_c")).isNotNull();
    }
  }
}
