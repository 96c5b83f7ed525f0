package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.PruningReport;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.query.NanLayouts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filter given as an Iceberg expression (a relation's {@code TimeTravelQuery}) answers in SQL as
 * the core query does: IEEE 754, a comparison with NaN is false, whatever the file layout. SQL text
 * written by the user is DuckDB's: NaN equals NaN and is greater than every number, on every layout.
 */
class DuckNanTest {
  @TempDir Path dir;

  FeatureStore store;
  SqlEngine sql;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).build();
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  @Test
  void relationFilters_onEveryLayout_answerAsTheCoreQueryAndIeee_andPlanTheFilesTheExplanationKeeps() {
    int n = 0;
    for (NanLayouts.Layout layout : NanLayouts.layouts()) {
      FeatureTable table = NanLayouts.create(store, layout, n++);
      for (NanLayouts.Case c : NanLayouts.cases()) {
        String what = layout + ": " + c;
        TimeTravelQuery query = table.query().filter(c.filter());
        List<Long> expected = NanLayouts.expected(c);
        try (SqlResult result = sql.query("SELECT id FROM t ORDER BY id").table("t", query).execute()) {
          List<Long> ids = new ArrayList<>();
          result.toList().forEach(row -> ids.add((Long) row.get("id")));
          assertThat(ids).as(what).containsExactlyElementsOf(expected);
          PruningReport report = table.explainPruning(c.filter());
          assertThat(result.stats().scanStats("t").plannedDataFiles()).as(what + " planned files")
              .isEqualTo(report.kept().size());
        }
        List<Long> core = new ArrayList<>();
        query.execute().forEach(row -> core.add((Long) row.get("id")));
        core.sort(null);
        assertThat(core).as(what + " core").containsExactlyElementsOf(expected);
      }
    }
  }

  @Test
  void issueLayout_greaterThan_isTwoRows_asAFilter_andDuckDbsOrderInSqlText() {
    FeatureTable table = NanLayouts.create(store, NanLayouts.layouts().get(0), 0);
    assertThat(ids("SELECT id FROM t WHERE TRUE", table.query().filter(Expressions.greaterThan("x", 0.5))))
        .containsExactly(4L, 5L);
    // SQL text is DuckDB's: NaN sorts above +Infinity and equals itself, on every layout
    int n = 1;
    for (NanLayouts.Layout layout : NanLayouts.layouts()) {
      FeatureTable t = NanLayouts.create(store, layout, n++);
      assertThat(ids("SELECT id FROM t WHERE x > 0.5", t.query())).as(layout.name()).containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(ids("SELECT id FROM t WHERE x = 'NaN'::DOUBLE", t.query())).as(layout.name())
          .containsExactly(1L, 2L, 3L);
      assertThat(ids("SELECT id FROM t WHERE x > 0.5 AND NOT isnan(x)", t.query())).as(layout.name())
          .containsExactly(4L, 5L);
    }
  }

  private List<Long> ids(String select, TimeTravelQuery query) {
    List<Long> ids = new ArrayList<>();
    for (Map<String, Object> row : sql.query(select + " ORDER BY id").table("t", query).toList()) {
      ids.add((Long) row.get("id"));
    }
    return ids;
  }
}
