package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TieringResult;
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
      List<Map<String, Object>> older = sql.query(SQL).table("ev", TableVersion.of(table).asOfSnapshot(snapshots.get(0))).toList();

      long second = table.unwrap(Table.class).snapshot(snapshots.get(1)).timestampMillis();
      Duration olderThanSecond = Duration.ofMillis(System.currentTimeMillis() - second - 500);
      assertThat(table.tiering().olderThan(olderThanSecond).run().filesMoved()).isEqualTo(2);
      assertThat(table.tiering().status().coldDataFiles()).isEqualTo(2);
      assertThat(sql.query(SQL).table("ev", table).toList()).isEqualTo(current);
      assertThat(sql.query(SQL).table("ev", TableVersion.of(table).asOfSnapshot(snapshots.get(0))).toList()).isEqualTo(older);

      TieringResult rest = table.tiering().olderThan(Duration.ZERO).run();
      assertThat(rest.filesMoved()).isEqualTo(1);
      assertThat(sql.query(SQL).table("ev", table).toList()).isEqualTo(current);
      assertThat(sql.query(SQL).table("ev", TableVersion.of(table).asOfSnapshot(snapshots.get(0))).toList()).isEqualTo(older);
      assertThat(sql.cacheStats().misses()).isPositive();
    }
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
