package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Row filters follow SQL: a comparison with a null value is unknown, so the row is dropped. */
class QueryNullsTest {
  @TempDir Path dir;

  @Test
  void comparisonsOnNulls_dropTheRow_likeSql() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "score", Types.DoubleType.get()));
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("t.scores", schema).build());
      List<Map<String, Object>> rows = new ArrayList<>();
      rows.add(Map.of("id", 1L, "score", 10.0));
      rows.add(Map.of("id", 2L, "score", 90.0));
      Map<String, Object> nullScore = new HashMap<>();
      nullScore.put("id", 3L);
      nullScore.put("score", null);
      rows.add(nullScore);
      table.append(rows);

      assertThat(ids(table, Expressions.lessThanOrEqual("score", 55.0))).containsExactly(1L);
      assertThat(ids(table, Expressions.notEqual("score", 10.0))).containsExactly(2L);
      assertThat(ids(table, Expressions.not(Expressions.greaterThan("score", 55.0)))).containsExactly(1L);
      assertThat(ids(table, Expressions.or(Expressions.lessThan("score", 55.0), Expressions.equal("id", 3L))))
          .containsExactlyInAnyOrder(1L, 3L);
      assertThat(ids(table, Expressions.isNull("score"))).containsExactly(3L);
      assertThat(table.query().filter(Expressions.lessThanOrEqual("score", 55.0)).count()).isEqualTo(1);
    }
  }

  private static List<Long> ids(FeatureTable table, org.apache.iceberg.expressions.Expression filter) {
    List<Long> ids = new ArrayList<>();
    table.query().filter(filter).execute().forEach(row -> ids.add((Long) row.get("id")));
    return ids;
  }
}
