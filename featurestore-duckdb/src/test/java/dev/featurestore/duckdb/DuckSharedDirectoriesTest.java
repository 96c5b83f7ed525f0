package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.s3.S3TestServer;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several stores on one root (in one JVM, or in several processes, as the SQLite catalog allows)
 * each open a DuckDB engine: each engine owns its work directory (file cache, DuckDB's temporary
 * files, exports in progress), so one engine's cache eviction never deletes files another
 * engine's query reads.
 */
class DuckSharedDirectoriesTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  private static FeatureStore openOnBucket(Path root) {
    return FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate().toBuilder().keyPrefix("shared").build())
        .build();
  }

  private static List<Map<String, Object>> all(SqlEngine sql, FeatureTable table) {
    try (SqlResult result = sql.query("SELECT entity_id, feature_a FROM t ORDER BY entity_id").table("t", table)
        .execute()) {
      return result.toList();
    }
  }

  @Test
  void twoStoresOnOneRoot_secondEngineEvictsOnlyItsOwnCache_firstStaysWarm() throws Exception {
    Path root = dir.resolve("root");
    try (FeatureStore a = openOnBucket(root);
        SqlEngine sqlA = DuckQueries.builder(a).threads(1).memoryLimit("256MB").build()) {
      FeatureTable events = TestTables.createEvents(a, false);
      TestTables.append(events, List.of(event(events, 1, "2026-01-01T00:00:00Z", 1.0, 2.0),
          event(events, 2, "2026-01-01T00:00:00Z", 3.0, 4.0)));
      TestTables.append(events, List.of(event(events, 3, "2026-01-02T00:00:00Z", 5.0, 6.0)));
      List<Map<String, Object>> expected = all(sqlA, events);
      assertThat(expected).hasSize(3);
      assertThat(sqlA.cacheStats().files()).isEqualTo(2);
      Path workA = ((DuckEngine) sqlA).workDirectory();
      assertThat(workA).isEqualTo(root.resolve("duckdb").toAbsolutePath().normalize());

      Path workB;
      try (FeatureStore b = openOnBucket(root);
          SqlEngine sqlB = DuckQueries.builder(b).threads(1).memoryLimit("256MB").cacheMaxBytes(0).build()) {
        // B caches nothing beyond its bound: it evicts what it fetched, from its own directory
        assertThat(all(sqlB, b.table(events.id()))).isEqualTo(expected);
        // A's cached files are still there: its next query is served from them
        try (SqlResult warm = sqlA.query("SELECT entity_id, feature_a FROM t ORDER BY entity_id")
            .table("t", events).execute()) {
          assertThat(warm.toList()).isEqualTo(expected);
          assertThat(warm.stats().tables().get(0).filesFromCache()).isEqualTo(2);
          assertThat(warm.stats().tables().get(0).filesFetched()).isZero();
        }
        assertThat(sqlB.cacheStats().files()).isZero();
        assertThat(sqlB.cacheStats().evictions()).isEqualTo(2); // its own two, not A's
        workB = ((DuckEngine) sqlB).workDirectory();
        assertThat(workB.getParent()).isEqualTo(workA.resolve("private"));
      }
      assertThat(workB).doesNotExist(); // a private work directory is deleted on close
      assertThat(all(sqlA, events)).isEqualTo(expected);
    }
  }

  @Test
  void namedWorkDirectoryInUse_isRefused_untilClosed() {
    Path work = dir.resolve("work").toAbsolutePath().normalize();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("root"));
        SqlEngine first = DuckQueries.builder(store).threads(1).workDirectory(work).build()) {
      assertThatThrownBy(() -> DuckQueries.builder(store).threads(1).workDirectory(work).build())
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot open DuckDB engine: directory in use by another store: " + work);
      assertThat(first.query("SELECT 1 AS one").execute().toList()).hasSize(1);
      first.close();
      try (SqlEngine second = DuckQueries.builder(store).threads(1).workDirectory(work).build()) {
        assertThat(((DuckEngine) second).workDirectory()).isEqualTo(work);
      }
    }
  }

  @Test
  void engineWithoutRoot_deletesItsTemporaryWorkDirectoryOnClose() {
    try (FeatureStore store = FeatureStore.builder().catalogFile(dir.resolve("catalog.db"))
        .warehouseLocation(dir.resolve("warehouse").toString()).build()) {
      Path work;
      try (SqlEngine sql = DuckQueries.builder(store).threads(1).build()) {
        work = ((DuckEngine) sql).workDirectory();
        assertThat(work).isDirectory();
      }
      assertThat(work).doesNotExist();
    }
  }

  @Test
  void otherProcessOwnsTheDefaultWorkDirectory_thisEngineWorksPrivately_namedIsRefused() throws Exception {
    Path root = dir.resolve("root");
    Path shared = root.resolve("duckdb").toAbsolutePath().normalize();
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable events = TestTables.createEvents(store, false);
      TestTables.append(events, List.of(event(events, 1, "2026-01-01T00:00:00Z", 1.0, 2.0)));
      try (ChildJvm child = ChildJvm.start(SharedRootChild.class, dir, root.toString())) {
        assertThat(child.await("READY ", WAIT)).contains("READY " + shared);
        Path mine;
        try (SqlEngine sql = DuckQueries.builder(store).threads(1).build()) {
          mine = ((DuckEngine) sql).workDirectory();
          assertThat(mine.getParent()).isEqualTo(shared.resolve("private"));
          assertThat(all(sql, events)).hasSize(1);
          Path export = dir.resolve("out.parquet");
          assertThat(sql.query("SELECT * FROM t").table("t", events).exportParquet(export).rows()).isEqualTo(1);
        }
        assertThat(mine).doesNotExist();
        assertThatThrownBy(() -> DuckQueries.builder(store).threads(1).workDirectory(shared).build())
            .isExactlyInstanceOf(InvalidStateException.class)
            .hasMessage("Cannot open DuckDB engine: directory in use by another store: " + shared);
        child.kill(); // SIGKILL: its lock ends with the process
      }
      try (SqlEngine sql = DuckQueries.builder(store).threads(1).build()) {
        assertThat(((DuckEngine) sql).workDirectory()).isEqualTo(shared);
        assertThat(all(sql, events)).hasSize(1);
      }
      assertThat(Files.isDirectory(shared.resolve("tmp"))).isTrue();
    }
  }
}
