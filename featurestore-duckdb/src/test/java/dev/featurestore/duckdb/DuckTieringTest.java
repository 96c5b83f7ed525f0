package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.ColdCacheStats;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TieringResult;
import dev.featurestore.core.storage.s3.ProviderGate;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * DuckDB over a table whose files are partly hot (local disk) and partly cold (a loopback S3 bucket
 * behind the B2 gate): SQL results, including time travel to a snapshot that still names hot paths
 * whose files were moved, are the same before and after each move.
 */
class DuckTieringTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  static final String SQL = "SELECT count(*) AS n, sum(entity_id) AS ids, round(sum(feature_a), 6) AS a, "
      + "count(DISTINCT entity_id) AS entities FROM ev";

  @Test
  void sqlOverMixedHotAndColdFiles_andTimeTravel_areUnchangedByEachMove() {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).coldStorage(s3.b2ThroughGate()).build();
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(TableId.of("duck", "tiered"), SyntheticFeatures.schema()).build());
      List<Long> snapshots = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        if (i == 2) {
          sleep(1_500); // the age threshold below falls in this gap
        }
        snapshots.add(table.ingest().synthetic(500, i).commit().snapshotId().orElseThrow());
      }
      List<Map<String, Object>> current = sql.query(SQL).table("ev", table).toList();
      List<Map<String, Object>> older = sql.query(SQL).table("ev", table.query().asOfSnapshot(snapshots.get(0))).toList();

      long second = table.unwrap(Table.class).snapshot(snapshots.get(1)).timestampMillis();
      Duration olderThanSecond = Duration.ofMillis(System.currentTimeMillis() - second - 500);
      assertThat(table.tiering().olderThan(olderThanSecond).run().filesMoved()).isEqualTo(2);
      assertThat(table.tiering().status().coldDataFiles()).isEqualTo(2);
      assertThat(sql.query(SQL).table("ev", table).toList()).isEqualTo(current);
      assertThat(sql.query(SQL).table("ev", table.query().asOfSnapshot(snapshots.get(0))).toList()).isEqualTo(older);

      TieringResult rest = table.tiering().olderThan(Duration.ZERO).run();
      assertThat(rest.filesMoved()).isEqualTo(1);
      assertThat(sql.query(SQL).table("ev", table).toList()).isEqualTo(current);
      assertThat(sql.query(SQL).table("ev", table.query().asOfSnapshot(snapshots.get(0))).toList()).isEqualTo(older);
      // cold files and moved hot paths are read from the store's cold cache, never the engine's
      assertThat(sql.cacheStats().misses()).isZero();
      assertThat(sql.cacheStats().files()).isZero();
      assertThat(table.tiering().status().cache().files()).isEqualTo(3);
    }
  }

  @Test
  void sqlOverColdFiles_fetchesEachOnceIntoTheColdCache_andASecondQueryMakesNoBucketRequest() {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).coldStorage(s3.b2ThroughGate()).build();
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(TableId.of("duck", "cold"), SyntheticFeatures.schema()).build());
      long first = 0;
      for (int i = 0; i < 3; i++) {
        long id = table.ingest().synthetic(400, i).commit().snapshotId().orElseThrow();
        first = i == 0 ? id : first;
      }
      dev.featurestore.TimeTravelQuery old = table.query().asOfSnapshot(first);
      List<Map<String, Object>> hot = sql.query(SQL).table("ev", table).toList();
      List<Map<String, Object>> hotOld = sql.query(SQL).table("ev", old).toList();
      assertThat(table.tiering().olderThan(Duration.ZERO).run().filesMoved()).isEqualTo(3);
      long coldBytes = table.tiering().status().coldBytes();

      s3.gate().reset();
      try (SqlResult result = sql.query(SQL).table("ev", table).execute()) {
        assertThat(result.toList()).isEqualTo(hot);
        TableScanStats stats = result.stats().tables().get(0);
        assertThat(stats.filesFetched()).isEqualTo(3);
        assertThat(stats.filesFromCache()).isZero();
        assertThat(stats.bytesFetched()).isEqualTo(coldBytes);
      }
      assertThat(gets()).hasSize(3).doesNotHaveDuplicates();
      ColdCacheStats cold = table.tiering().status().cache();
      assertThat(cold.files()).isEqualTo(3);
      assertThat(cold.misses()).isEqualTo(3);
      assertThat(cold.bytes()).isEqualTo(coldBytes);

      s3.gate().reset();
      try (SqlResult result = sql.query(SQL).table("ev", table).execute()) {
        assertThat(result.toList()).isEqualTo(hot);
        TableScanStats stats = result.stats().tables().get(0);
        assertThat(stats.filesFromCache()).isEqualTo(3);
        assertThat(stats.filesFetched()).isZero();
        assertThat(stats.bytesFetched()).isZero();
      }
      // time travel names the hot paths of moved files: the same cold cache entries serve them
      try (SqlResult result = sql.query(SQL).table("ev", old).execute()) {
        assertThat(result.toList()).isEqualTo(hotOld);
        assertThat(result.stats().tables().get(0).filesFromCache()).isEqualTo(1);
      }
      assertThat(gets()).isEmpty();
      cold = table.tiering().status().cache();
      assertThat(cold.misses()).isEqualTo(3);
      assertThat(cold.hits()).isEqualTo(4);
      assertThat(cold.files()).isEqualTo(3);
      assertThat(sql.cacheStats()).isEqualTo(new CacheStats(0, 0, sql.cacheStats().maxBytes(), 0, 0, 0, 0));
    }
  }

  @Test
  void coldFilesHeldByAnOpenResult_areNotEvicted_evenBeyondTheCacheBound() {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).coldStorage(s3.b2ThroughGate())
            .coldCache(dir.resolve("cold-cache"), 1).build();
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(TableId.of("duck", "small"), SyntheticFeatures.schema()).build());
      for (int i = 0; i < 2; i++) {
        table.ingest().synthetic(300, i).commit();
      }
      List<Map<String, Object>> hot = sql.query("SELECT entity_id, feature_a FROM ev ORDER BY ALL")
          .table("ev", table).toList();
      assertThat(table.tiering().olderThan(Duration.ZERO).run().filesMoved()).isEqualTo(2);

      try (SqlResult result = sql.query("SELECT entity_id, feature_a FROM ev ORDER BY ALL").table("ev", table).execute()) {
        assertThat(table.tiering().status().cache().files()).isEqualTo(2); // held past the 1-byte bound
        assertThat(result.toList()).isEqualTo(hot);
      }
      ColdCacheStats cold = table.tiering().status().cache();
      assertThat(cold.files()).isZero(); // released when the result closed, then evicted
      assertThat(cold.evictions()).isEqualTo(2);
      assertThat(sql.query("SELECT entity_id, feature_a FROM ev ORDER BY ALL").table("ev", table).toList())
          .isEqualTo(hot);
      assertThat(table.tiering().status().cache().misses()).isEqualTo(4);
    }
  }

  private static List<String> gets() {
    return s3.gate().seen().stream().filter(seen -> seen.method().equals("GET")).map(ProviderGate.Seen::target).toList();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
