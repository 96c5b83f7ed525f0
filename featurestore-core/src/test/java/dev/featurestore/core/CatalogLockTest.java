package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real failing commit: another connection holds SQLite's write lock on the catalog past the
 * busy timeout. Schema changes and rollbacks fail typed and leave the table as it was.
 */
class CatalogLockTest {
  @TempDir Path dir;

  private FeatureStore open() {
    return FeatureStore.builder().root(dir).busyTimeout(Duration.ofMillis(200)).commitRetries(1).build();
  }

  private Throwable whileCatalogLocked(Runnable action) throws Exception {
    try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
        Statement statement = lock.createStatement()) {
      statement.execute("BEGIN EXCLUSIVE");
      try {
        return catchThrowable(action::run);
      } finally {
        statement.execute("ROLLBACK");
      }
    }
  }

  @Test
  void schemaChange_whileCatalogLocked_failsAsConflict_schemaUnchanged() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();
      var schemaBefore = table.schema().asStruct();

      Throwable thrown = whileCatalogLocked(
          () -> table.evolveSchema().addColumn("feature_c", Types.DoubleType.get()).commit());

      assertThat(thrown)
          .isInstanceOf(CommitConflictException.class)
          .hasMessageEndingWith("the catalog is locked by another writer: [SQLITE_BUSY] The database file is locked (database is locked)");
      table.refresh();
      assertThat(table.schema().asStruct()).isEqualTo(schemaBefore);
      // works again once the lock is gone
      table.evolveSchema().addColumn("feature_c", Types.DoubleType.get()).commit();
      assertThat(table.schema().findField("feature_c")).isNotNull();
    }
  }

  @Test
  void rollback_whileCatalogLocked_failsAsConflict_currentSnapshotUnchanged() throws Exception {
    try (FeatureStore store = open()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      long first = table.ingest().synthetic(100, 1).commit().snapshotId().getAsLong();
      long second = table.ingest().synthetic(100, 2).commit().snapshotId().getAsLong();

      Throwable thrown = whileCatalogLocked(() -> table.snapshots().rollbackTo(first));

      assertThat(thrown).isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("the catalog is locked by another writer");
      table.refresh();
      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(second);
      assertThat(table.query().count()).isEqualTo(200);
    }
  }
}
