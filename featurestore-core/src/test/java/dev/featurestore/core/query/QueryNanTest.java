package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.FileDecision;
import dev.featurestore.PruningReport;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filters on float and double columns follow IEEE 754 whatever the file layout: a comparison with
 * NaN is false (so its negation is true), NaN is found with isNaN; the pruning explanation keeps
 * every file holding a matching row and agrees with the query's planning.
 */
class QueryNanTest {
  @TempDir Path dir;

  @Test
  void greaterThan_onTheIssueLayout_returnsOnlyNumbersAbove() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = NanLayouts.create(store, NanLayouts.layouts().get(0), 0);
      assertThat(ids(table, Expressions.greaterThan("x", 0.5))).containsExactly(4L, 5L);
      assertThat(table.query().filter(Expressions.greaterThan("x", 0.5)).count()).isEqualTo(2);
      assertThat(ids(table, Expressions.not(Expressions.greaterThan("x", 0.5)))).containsExactly(1L, 2L, 3L, 6L, 7L);
    }
  }

  @Test
  void everyOperator_onEveryLayout_answersIeee_inQueryCountAndExplanation() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      int n = 0;
      for (NanLayouts.Layout layout : NanLayouts.layouts()) {
        FeatureTable table = NanLayouts.create(store, layout, n++);
        Map<String, Set<Long>> idsByFile = idsByFile(table);
        for (NanLayouts.Case c : NanLayouts.cases()) {
          String what = layout + ": " + c;
          List<Long> expected = NanLayouts.expected(c);
          assertThat(ids(table, c.filter())).as(what).containsExactlyElementsOf(expected);
          assertThat(table.query().filter(c.filter()).count()).as(what + " count").isEqualTo(expected.size());

          PruningReport report = table.explainPruning(c.filter());
          for (FileDecision dropped : report.dropped()) {
            assertThat(idsByFile.get(dropped.location())).as(what + " dropped " + dropped.reason())
                .noneMatch(expected::contains);
          }
          try (QueryResult result = table.query().filter(c.filter()).execute()) {
            result.forEach(row -> { });
            assertThat(result.scanStats().plannedDataFiles()).as(what + " planned files")
                .isEqualTo(report.kept().size());
          }
        }
      }
    }
  }

  static List<Long> ids(FeatureTable table, org.apache.iceberg.expressions.Expression filter) {
    List<Long> ids = new ArrayList<>();
    try (QueryResult result = table.query().filter(filter).execute()) {
      for (Row row : result) {
        ids.add((Long) row.get("id"));
      }
    }
    ids.sort(null);
    return ids;
  }

  /** The ids each live data file holds, read without any filter. */
  static Map<String, Set<Long>> idsByFile(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Schema idOnly = iceberg.schema().select("id");
    Map<String, Set<Long>> byFile = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        Set<Long> ids = new HashSet<>();
        try (CloseableIterable<Record> records = Parquet.read(iceberg.io().newInputFile(task.file().location()))
            .project(idOnly)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(idOnly, fileSchema))
            .build()) {
          records.forEach(r -> ids.add((Long) r.getField("id")));
        }
        byFile.put(task.file().location(), ids);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return byFile;
  }
}
