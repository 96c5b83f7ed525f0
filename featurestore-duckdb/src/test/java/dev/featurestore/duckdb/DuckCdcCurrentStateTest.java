package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcPipeline;
import dev.featurestore.cdc.CurrentStateLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A CDC current state read through SQL: the merge-on-read layout's deletion vectors are applied
 * (one row per live document, its last image), before and after compaction, as in the
 * copy-on-write layout and as Iceberg's reader returns it.
 */
class DuckCdcCurrentStateTest {
  private static final TableId STATE = TableId.of("cdc", "docs");

  @TempDir Path dir;

  private static Map<String, Integer> sqlState(SqlEngine sql, FeatureTable table) {
    Map<String, Integer> state = new TreeMap<>();
    for (Map<String, Object> row : sql.query("SELECT collection, doc_id, v FROM t").table("t", table).toList()) {
      Integer previous = state.put(row.get("collection") + "/" + row.get("doc_id"), ((Number) row.get("v")).intValue());
      assertThat(previous).as("one row per document").isNull();
    }
    return state;
  }

  private static Map<String, Integer> coreState(FeatureTable table) {
    Map<String, Integer> state = new TreeMap<>();
    table.query().execute().toList().forEach(r -> state.put(r.get("collection") + "/" + r.get("doc_id"),
        ((Number) r.get("v")).intValue()));
    return state;
  }

  @ParameterizedTest
  @EnumSource(CurrentStateLayout.class)
  void randomUpdatesAndDeletes_sqlSeesTheLastImageOfEveryLiveDocument(CurrentStateLayout layout) {
    Random random = new Random(7);
    Map<String, Integer> model = new TreeMap<>();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
        CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).writeAheadLog(dir.resolve("wal"))
            .currentStateLayout(layout).flushInterval(Duration.ZERO).build()) {
      int version = 0;
      for (int batch = 0; batch < 8; batch++) {
        for (int i = 0; i < 25; i++) {
          int d = random.nextInt(30);
          String key = "users/u" + d;
          if (random.nextInt(4) == 0) {
            cdc.delete("users", "u" + d);
            model.remove(key);
          } else {
            cdc.update("users", "u" + d, Map.of("v", ++version));
            model.put(key, version);
          }
        }
        cdc.flush();
        FeatureTable table = store.table(STATE);
        assertThat(sqlState(sql, table)).as("SQL after batch " + batch).isEqualTo(model);
      }
      FeatureTable table = store.table(STATE);
      table.maintenance().compact().execute();
      assertThat(sqlState(sql, store.table(STATE))).as("SQL after compaction").isEqualTo(model);
      assertThat(coreState(store.table(STATE))).as("the core query").isEqualTo(model);
    }
  }

  @Test
  void mergeOnRead_isTheDefault_andWritesDeletionVectorsSqlApplies() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
        CdcPipeline cdc = CdcPipeline.builder(store).currentState(STATE).writeAheadLog(dir.resolve("wal"))
            .flushInterval(Duration.ZERO).build()) {
      cdc.insert("users", "a", Map.of("v", 1));
      cdc.insert("users", "b", Map.of("v", 1));
      cdc.flush();
      cdc.update("users", "a", Map.of("v", 2));
      cdc.delete("users", "b");
      cdc.flush();
      FeatureTable table = store.table(STATE);
      assertThat(table.properties()).containsEntry(CurrentStateLayout.PROPERTY, "merge-on-read");
      assertThat(sqlState(sql, table)).containsExactly(Map.entry("users/a", 2));
    }
  }
}
