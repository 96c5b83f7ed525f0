package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.FileDecision;
import dev.featurestore.FileDecision.Outcome;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.PruningReport;
import dev.featurestore.QueryResult;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Pruning decisions, file by file, for each transform and an evolved spec. */
class PruningTest extends LocalStoreTest {
  private static final int ROWS = 40;
  private FeatureTable table(String name, Function<PartitionSpecBuilder, PartitionSpecBuilder> spec) {
    FeatureTable table = PruneTables.create(store, name, spec);
    PruneTables.append(table, 0, ROWS / 2);
    PruneTables.append(table, ROWS / 2, ROWS);
    return table;
  }

  private static long micros(OffsetDateTime t) {
    return (Long) Literal.of(t.toString()).to(Types.TimestampType.withZone()).value();
  }

  /**
   * Checks the report against the table: kept files are exactly the ones Iceberg's scan plans,
   * every file holding a matching row is kept, and each dropped file was dropped by what the test
   * expects.
   */
  private static PruningReport check(FeatureTable table, Expression filter, Outcome expectedDrop) {
    PruningReport report = table.explainPruning(filter);
    Set<String> kept = report.kept().stream().map(FileDecision::location).collect(Collectors.toSet());
    assertThat(kept).isEqualTo(PruneTables.planned(table, filter));
    assertThat(report.files()).hasSize(table.explainPruning(Expressions.alwaysTrue()).files().size());
    if (expectedDrop != null) {
      assertThat(report.dropped()).isNotEmpty().allSatisfy(f -> assertThat(f.outcome()).isEqualTo(expectedDrop));
    }
    try (QueryResult rows = table.query().filter(filter).execute()) {
      assertThat(rows.scanStats().plannedDataFiles()).isEqualTo(kept.size());
    }
    return report;
  }

  @Test
  void identity_dropsOtherPartitions() {
    FeatureTable table = table("identity", b -> b.identity("cat"));
    PruningReport report = check(table, Expressions.equal("cat", "cherry"), Outcome.DROPPED_BY_PARTITION);
    assertThat(report.kept()).isNotEmpty().allMatch(f -> f.partitionPath().equals("cat=cherry"));
    assertThat(report.dropped()).allMatch(f -> !f.partitionPath().equals("cat=cherry"));
    assertThat(report.dropped().get(0).reason()).contains("does not match ref(name=\"cat\") == \"cherry\"");
    assertThat(check(table, Expressions.isNull("cat"), Outcome.DROPPED_BY_PARTITION).kept())
        .allMatch(f -> f.partitionPath().equals("cat=null"));
  }

  @Test
  void year_month_day_hour_keepOnlyTheMatchingPeriods() {
    OffsetDateTime from = PruneTables.ts(10);
    OffsetDateTime to = PruneTables.ts(14);
    Expression range = Expressions.and(
        Expressions.greaterThanOrEqual("ts", micros(from)), Expressions.lessThanOrEqual("ts", micros(to)));
    for (String transform : List.of("year", "month", "day", "hour")) {
      FeatureTable table = table(transform, b -> switch (transform) {
        case "year" -> b.year("ts");
        case "month" -> b.month("ts");
        case "day" -> b.day("ts");
        default -> b.hour("ts");
      });
      PruningReport report = check(table, range, null);
      // each kept file's period overlaps [from, to]; each dropped one does not (partition) or its rows are outside (stats)
      assertThat(report.kept()).isNotEmpty();
      for (FileDecision file : report.files()) {
        String period = file.partitionPath().substring(file.partitionPath().indexOf('=') + 1);
        String lo = from.toString().substring(0, period.length());
        String hi = to.toString().substring(0, period.length()).replace('T', '-');
        boolean overlaps = period.compareTo(lo.replace('T', '-')) >= 0 && period.compareTo(hi) <= 0;
        if (file.outcome() == Outcome.DROPPED_BY_PARTITION) {
          assertThat(overlaps).as(transform + " " + file).isFalse();
        } else {
          assertThat(overlaps).as(transform + " " + file).isTrue();
        }
      }
      assertThat(report.dropped()).as(transform).anyMatch(f -> f.outcome() == Outcome.DROPPED_BY_PARTITION);
    }
  }

  @Test
  void bucket_keepsTheKeysBucket_statsDropTheRest() {
    FeatureTable table = table("bucket", b -> b.bucket("id", 4));
    int bucket = org.apache.iceberg.transforms.Transforms.bucket(4).bind(Types.LongType.get()).apply(7L);
    PruningReport report = check(table, Expressions.equal("id", 7L), null);
    // two appends: the bucket's file in the first (ids 0..19) is kept, in the second (20..39) stats drop it
    assertThat(report.kept()).singleElement()
        .satisfies(f -> assertThat(f.partitionPath()).isEqualTo("id_bucket=" + bucket));
    assertThat(report.dropped()).filteredOn(f -> f.partitionPath().equals("id_bucket=" + bucket))
        .singleElement().satisfies(f -> {
          assertThat(f.outcome()).isEqualTo(Outcome.DROPPED_BY_COLUMN_STATS);
          assertThat(f.reason()).startsWith("column stats exclude ref(name=\"id\") == 7; id in [2");
        });
    assertThat(report.dropped()).filteredOn(f -> !f.partitionPath().equals("id_bucket=" + bucket))
        .hasSize(6).allMatch(f -> f.outcome() == Outcome.DROPPED_BY_PARTITION);
    check(table, Expressions.in("id", 1L, 2L, 3L), null);
  }

  @Test
  void truncate_prunesStartsWith() {
    FeatureTable table = table("truncate", b -> b.truncate("cat", 1));
    PruningReport report = check(table, Expressions.startsWith("cat", "bl"), Outcome.DROPPED_BY_PARTITION);
    assertThat(report.kept()).isNotEmpty().allMatch(f -> f.partitionPath().equals("cat_trunc=b"));
  }

  /**
   * Iceberg 1.12's ResidualEvaluator throws a NullPointerException for startsWith over a null
   * partition value (identity or truncate on a column with nulls) when the partition is not
   * already excluded, e.g. inside an OR. The report still explains the file (rows checked against
   * the whole filter); a query with such a filter fails in planning's residual (see the report).
   */
  @Test
  void startsWith_orOnANullTruncatePartition_isExplained() {
    FeatureTable table = table("truncnull", b -> b.truncate("cat", 1));
    Expression filter = Expressions.or(Expressions.startsWith("cat", "bl"), Expressions.lessThan("id", 3L));
    PruningReport report = table.explainPruning(filter);
    assertThat(report.kept().stream().map(FileDecision::location).collect(Collectors.toSet()))
        .isEqualTo(PruneTables.planned(table, filter));
    assertThat(report.kept()).filteredOn(f -> f.partitionPath().equals("cat_trunc=null"))
        .allSatisfy(f -> assertThat(f.reason()).contains("rows checked against"));
  }

  @Test
  void void_neverPrunesByPartition() {
    FeatureTable table = table("void", b -> b.alwaysNull("cat"));
    PruningReport report = check(table, Expressions.equal("cat", "cherry"), null);
    assertThat(report.files()).hasSize(2);
    assertThat(report.dropped()).isEmpty();
    assertThat(check(table, Expressions.lessThan("id", 5L), Outcome.DROPPED_BY_COLUMN_STATS).kept()).hasSize(1);
  }

  @Test
  void unpartitioned_prunesByColumnStats_andSaysWhich() {
    FeatureTable table = table("unpartitioned", b -> b);
    PruningReport report = check(table, Expressions.greaterThan("id", 30L), Outcome.DROPPED_BY_COLUMN_STATS);
    assertThat(report.dropped()).singleElement().satisfies(f ->
        assertThat(f.reason()).isEqualTo("column stats exclude ref(name=\"id\") > 30; id in [0, 19], nulls 0"));
    assertThat(report.kept()).singleElement().satisfies(f ->
        assertThat(f.reason()).isEqualTo("unpartitioned and column stats may match; rows checked against ref(name=\"id\") > 30"));
  }

  @Test
  void evolvedSpec_oldFilesJudgedByTheirOwnSpec() {
    FeatureTable table = PruneTables.create(store, "evolved", b -> b.month("ts"));
    PruneTables.append(table, 0, 20);
    table.evolvePartitionSpec().removeField("ts_month").bucket("id", 4).commit();
    PruneTables.append(table, 20, 40);
    Expression filter = Expressions.and(
        Expressions.equal("id", 25L), Expressions.greaterThanOrEqual("ts", micros(PruneTables.ts(20))));
    PruningReport report = check(table, filter, null);
    assertThat(report.kept()).singleElement().satisfies(f -> assertThat(f.specId()).isEqualTo(1));
    // old files (spec 0, by month): the ts bound drops them by partition
    assertThat(report.dropped()).filteredOn(f -> f.specId() == 0)
        .isNotEmpty().allMatch(f -> f.outcome() == Outcome.DROPPED_BY_PARTITION);
    // new files (spec 1, by bucket): other buckets dropped by partition
    assertThat(report.dropped()).filteredOn(f -> f.specId() == 1)
        .isNotEmpty().allMatch(f -> f.outcome() == Outcome.DROPPED_BY_PARTITION);
    assertThat(report.partitions().values()).contains(true, false);
  }

  @Test
  void partitionsReport_andSnapshots() {
    FeatureTable table = table("snapshots", b -> b.identity("cat"));
    long first = table.snapshots().history().get(0).snapshotId();
    PruningReport old = table.explainPruning(Expressions.alwaysTrue(), first);
    assertThat(old.files()).hasSize(5);
    assertThat(table.explainPruning(Expressions.alwaysTrue()).files()).hasSize(10);
    assertThat(table.explainPruning(Expressions.equal("cat", "apple")).partitions())
        .containsEntry("0:cat=apple", true).containsEntry("0:cat=banana", false);
    assertThatThrownBy(() -> table.explainPruning(Expressions.equal("nope", 1)))
        .hasMessageContaining("Cannot find field 'nope'");
    Set<String> seen = new HashSet<>();
    old.files().forEach(f -> assertThat(seen.add(f.location())).isTrue());
  }
}
