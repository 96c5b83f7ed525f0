package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.DataFileBloomFilters;
import dev.featurestore.FeatureTable;
import dev.featurestore.FileDecision;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.PruningReport;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ParquetInput;
import dev.featurestore.core.testing.LocalStoreTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The file-level tools: pruning a list of data files, and a data file's bloom filters. */
class FileToolsTest extends LocalStoreTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "entity_id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()));

  FeatureTable table;

  @BeforeEach
  void open() {
    table = store.createTable(TableDefinition.builder("tools.t", SCHEMA)
        .partitionBy(s -> org.apache.iceberg.PartitionSpec.builderFor(s).identity("region").build())
        .bloomFilter("entity_id", 2_000)
        .property("write.parquet.row-group-size-bytes", "2048")
        .property("write.parquet.row-group-check-min-record-count", "50")
        .property("write.parquet.row-group-check-max-record-count", "50")
        .build());
    for (String region : List.of("eu", "us", "ap")) {
      List<Map<String, Object>> rows = new ArrayList<>();
      int base = region.equals("eu") ? 0 : region.equals("us") ? 10_000 : 20_000;
      for (int i = 0; i < 1_000; i++) {
        rows.add(Map.of("entity_id", (long) base + i * 2, "region", region, "score", (double) i));
      }
      table.append(rows);
    }
  }

  @Test
  void explainPruning_ofAList_decidesEachFileAsTheWholeReport_inTheOrderGiven() {
    Expression filter = Expressions.and(Expressions.equal("region", "us"), Expressions.greaterThan("entity_id", 5L));
    PruningReport whole = table.explainPruning(filter);
    List<String> files = new ArrayList<>(whole.files().stream().map(FileDecision::location).toList());
    java.util.Collections.reverse(files);
    List<String> some = files.subList(0, 2);

    PruningReport listed = table.explainPruning(filter, some);

    assertThat(listed.files()).extracting(FileDecision::location).containsExactlyElementsOf(some);
    for (FileDecision decision : listed.files()) {
      assertThat(whole.files()).contains(decision);
    }
    assertThat(listed.snapshotId()).isEqualTo(whole.snapshotId());
    assertThat(listed.filter()).isEqualTo(whole.filter());
    // stats decide too: ids in "eu" are all below 2000
    PruningReport byStats = table.explainPruning(Expressions.greaterThan("entity_id", 30_000L), files);
    assertThat(byStats.files()).allSatisfy(f -> {
      assertThat(f.outcome()).isEqualTo(FileDecision.Outcome.DROPPED_BY_COLUMN_STATS);
      assertThat(f.reason()).startsWith("column stats exclude ref(name=\"entity_id\") > 30000");
    });
  }

  @Test
  void explainPruning_ofAList_explainsEachDecision_andKeepsWhatIcebergsPlanningKeeps() {
    // one data file per region: eu holds ids [0, 1998], us [10000, 11998], ap [20000, 21998]
    Expression filter = Expressions.and(Expressions.in("region", "us", "ap"), Expressions.lessThan("entity_id", 15_000L));
    Map<String, String> byRegion = new java.util.TreeMap<>();
    table.explainPruning(Expressions.alwaysTrue()).files().forEach(f -> byRegion.put(f.partitionPath(), f.location()));
    List<String> files = List.of(byRegion.get("region=eu"), byRegion.get("region=us"), byRegion.get("region=ap"));

    PruningReport report = table.explainPruning(filter, files);

    assertThat(report.files()).extracting(FileDecision::location).containsExactlyElementsOf(files);
    assertThat(report.files()).extracting(FileDecision::outcome).containsExactly(FileDecision.Outcome.DROPPED_BY_PARTITION,
        FileDecision.Outcome.KEPT, FileDecision.Outcome.DROPPED_BY_COLUMN_STATS);
    assertThat(report.files()).extracting(FileDecision::reason).containsExactly(
        "manifest partition ranges exclude ref(name=\"region\") in (\"us\", \"ap\"); partition region=eu (spec 0)",
        "partition region=us (spec 0) and column stats may match; rows checked against ref(name=\"entity_id\") < 15000",
        "column stats exclude ref(name=\"entity_id\") < 15000; entity_id in [20000, 21998], nulls 0");
    // the kept files are the ones Iceberg's own scan planning reads
    assertThat(report.kept()).extracting(FileDecision::location)
        .containsExactlyInAnyOrderElementsOf(dev.featurestore.core.query.PruneTables.planned(table, filter));
  }

  @Test
  void explainPruning_ofAList_refusesUnknownEmptyAndRepeatedFiles() {
    String file = table.explainPruning(Expressions.alwaysTrue()).files().get(0).location();
    long current = table.snapshots().current().orElseThrow().snapshotId();
    assertThatThrownBy(() -> table.explainPruning(Expressions.alwaysTrue(), List.of(file, "/nope.parquet")))
        .isExactlyInstanceOf(NotFoundException.class)
        .hasMessage("Cannot explain pruning of data files: not a live data file of snapshot " + current + ": /nope.parquet");
    assertThatThrownBy(() -> table.explainPruning(Expressions.alwaysTrue(), List.of()))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot explain pruning of data files: no data file given: []");
    assertThatThrownBy(() -> table.explainPruning(Expressions.alwaysTrue(), List.of(file, file)))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot explain pruning of data files: a data file is listed twice: ");
  }

  @Test
  void readBloomFilters_perRowGroup_testsKeysAsTheRowGroupsHoldThem() throws Exception {
    String file = table.explainPruning(Expressions.equal("region", "us")).kept().get(0).location();

    DataFileBloomFilters blooms = table.readBloomFilters(file);

    assertThat(blooms.location()).isEqualTo(file);
    assertThat(blooms.rowGroupCount()).isGreaterThan(1);
    assertThat(blooms.columns()).containsExactly("entity_id");
    assertThat(blooms.filters("entity_id")).hasSize(blooms.rowGroupCount()).allMatch(Optional::isPresent);
    assertThat(blooms.filters("score")).hasSize(blooms.rowGroupCount()).allMatch(Optional::isEmpty);
    List<long[]> ranges = idRanges(file);
    for (long key = 10_000; key < 12_000; key += 2) {
      int group = groupOf(ranges, key);
      assertThat(blooms.rowGroupsMightContain("entity_id", key)).as("key " + key).contains(group);
    }
    int ruledOut = 0;
    for (long key = 10_001; key < 12_000; key += 2) { // odd: never written
      if (!blooms.mightContain("entity_id", key)) {
        ruledOut++;
      }
    }
    assertThat(ruledOut).isGreaterThan(900);
    // keys convert as in a filter: an int key for a long column
    assertThat(blooms.rowGroupsMightContain("entity_id", 10_000)).contains(groupOf(ranges, 10_000));
    // a column without filters is never ruled out
    assertThat(blooms.rowGroupsMightContain("score", 12345.0)).hasSize(blooms.rowGroupCount());
  }

  @Test
  void readBloomFilters_afterARename_answerToTheNewName() {
    String file = table.explainPruning(Expressions.alwaysTrue()).files().get(0).location();
    table.evolveSchema().renameColumn("entity_id", "id").commit();

    DataFileBloomFilters blooms = table.readBloomFilters(file);

    assertThat(blooms.columns()).containsExactly("id");
    assertThatThrownBy(() -> blooms.filters("entity_id"))
        .isExactlyInstanceOf(NotFoundException.class)
        .hasMessage("Cannot read bloom filters: unknown column: entity_id");
  }

  @Test
  void readBloomFilters_refusesMissingFilesColumnsAndBadKeys() {
    String file = table.explainPruning(Expressions.alwaysTrue()).files().get(0).location();
    assertThatThrownBy(() -> table.readBloomFilters(dir.resolve("nope.parquet").toString()))
        .isExactlyInstanceOf(NotFoundException.class)
        .hasMessage("Cannot read bloom filters: no data file: " + dir.resolve("nope.parquet"));
    DataFileBloomFilters blooms = table.readBloomFilters(file);
    assertThatThrownBy(() -> blooms.rowGroupsMightContain("entity_id", "not a number"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot test bloom filters: key does not convert to column entity_id (long): not a number");
    assertThatThrownBy(() -> blooms.mightContain("nope", 1L)).isExactlyInstanceOf(NotFoundException.class)
        .hasMessage("Cannot test bloom filters: unknown column: nope");
    assertThatThrownBy(() -> blooms.mightContain("entity_id", null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot test bloom filters: key is null: null");
  }

  /** The entity_id range of each row group, from the footer's statistics. */
  private List<long[]> idRanges(String file) throws Exception {
    Table iceberg = table.unwrap(Table.class);
    List<long[]> ranges = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(iceberg.io().newInputFile(file)))) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        Statistics<?> stats = block.getColumns().get(0).getStatistics();
        ranges.add(new long[] {(Long) stats.genericGetMin(), (Long) stats.genericGetMax()});
      }
    }
    return ranges;
  }

  private static int groupOf(List<long[]> ranges, long key) {
    for (int i = 0; i < ranges.size(); i++) {
      if (key >= ranges.get(i)[0] && key <= ranges.get(i)[1]) {
        return i;
      }
    }
    throw new AssertionError("no row group holds " + key);
  }
}
