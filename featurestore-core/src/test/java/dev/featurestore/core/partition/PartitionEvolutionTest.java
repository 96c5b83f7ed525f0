package dev.featurestore.core.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.PruningReport;
import dev.featurestore.core.query.PruneTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;

class PartitionEvolutionTest extends LocalStoreTest {
  @Test
  void evolve_newFilesUseTheNewSpec_oldFilesKeepTheirs() {
    FeatureTable table = PruneTables.create(store, "evolve", b -> b.year("ts"));
    PruneTables.append(table, 0, 20);
    PartitionSpec preview = table.evolvePartitionSpec().removeField("ts_year").month("ts").bucket("id", 4).apply();
    assertThat(table.spec().specId()).isEqualTo(0); // apply() does not commit
    assertThat(preview.fields()).extracting(f -> f.name()).containsExactly("ts_month", "id_bucket");

    PartitionSpec evolved = table.evolvePartitionSpec().removeField("ts_year").month("ts").bucket("id", 4).commit();
    table.refresh();
    assertThat(table.spec()).isEqualTo(evolved);
    PruneTables.append(table, 20, 40);

    PruningReport all = table.explainPruning(Expressions.alwaysTrue());
    Map<Integer, Long> filesBySpec = all.files().stream().collect(Collectors.groupingBy(f -> f.specId(), Collectors.counting()));
    assertThat(filesBySpec).containsOnlyKeys(0, evolved.specId());
    assertThat(all.files()).filteredOn(f -> f.specId() == 0).allMatch(f -> f.partitionPath().startsWith("ts_year="));
    assertThat(all.files()).filteredOn(f -> f.specId() == evolved.specId())
        .allMatch(f -> f.partitionPath().matches("ts_month=\\d{4}-\\d{2}/id_bucket=\\d"));
    try (var rows = table.query().execute()) {
      assertThat(rows.toList()).hasSize(40);
    }
  }

  @Test
  void evolve_checksEachStep() {
    FeatureTable table = PruneTables.create(store, "checks", b -> b.day("ts"));
    assertThatThrownBy(() -> table.evolvePartitionSpec().bucket("nope", 4))
        .hasMessage("Cannot partition by unknown column: nope");
    assertThatThrownBy(() -> table.evolvePartitionSpec().day("id"))
        .hasMessage("Cannot partition column id by day: transform not valid for type: long (day needs a date or timestamp column)");
    assertThatThrownBy(() -> table.evolvePartitionSpec().removeField("ts_hour"))
        .hasMessage("Cannot change partition field: no such field in the current spec: ts_hour");
    assertThatThrownBy(() -> table.evolvePartitionSpec().commit())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit partition spec change of table prune.checks: no change given");
    var change = table.evolvePartitionSpec().bucket("id", 2);
    change.commit();
    assertThatThrownBy(change::commit)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit partition spec change of table prune.checks: already committed");
  }

  @Test
  void partitionPath_ofARow_andOfPartitionValues() {
    FeatureTable table = PruneTables.create(store, "paths", b -> b.day("ts").bucket("id", 8).truncate("cat", 2));
    String path = table.partitionPath(Map.of("id", 42, "ts", "2026-01-02T23:30:00Z", "cat", "blueberry"));
    int bucket = org.apache.iceberg.transforms.Transforms.bucket(8)
        .bind(org.apache.iceberg.types.Types.LongType.get()).apply(42L);
    assertThat(path).isEqualTo("ts_day=2026-01-02/id_bucket=" + bucket + "/cat_trunc=bl");
    assertThat(table.partitionPathOf(List.of(LocalDate.parse("2026-01-02"), bucket, "bl"))).isEqualTo(path);
    assertThat(table.partitionPathOf(java.util.Arrays.asList((int) LocalDate.parse("2026-01-02").toEpochDay(), bucket, null)))
        .isEqualTo("ts_day=2026-01-02/id_bucket=" + bucket + "/cat_trunc=null");
    assertThatThrownBy(() -> table.partitionPath(Map.of("ts", "yesterday")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compute partition path: value of column ts does not convert to timestamptz: yesterday");
    assertThatThrownBy(() -> table.partitionPathOf(List.of(1)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot compute partition path: expected 3 values for spec");
  }

  @Test
  void partitionPath_matchesWhereIngestPutsTheRow() {
    FeatureTable table = PruneTables.create(store, "ingest", b -> b.month("ts").identity("cat"));
    table.append(List.of(Map.of("id", 1L, "ts", "2026-03-04T05:06:07Z", "cat", "kiwi")));
    String expected = table.partitionPath(Map.of("id", 1L, "ts", "2026-03-04T05:06:07Z", "cat", "kiwi"));
    assertThat(expected).isEqualTo("ts_month=2026-03/cat=kiwi");
    assertThat(table.explainPruning(Expressions.alwaysTrue()).files())
        .singleElement().satisfies(f -> assertThat(f.location()).contains("/" + expected + "/"));
  }

  /** The values a path accepts are exactly those an ingest accepts: one conversion for both. */
  @Test
  void partitionPath_convertsValuesAsIngestDoes() {
    FeatureTable table = PruneTables.create(store, "conv", b -> b.day("ts").identity("id"));
    String path = table.partitionPath(Map.of("id", 7L, "ts", "2026-01-02T00:00:00Z"));
    // a whole double for a long and a LocalDateTime for a timestamptz, as ingest takes them
    assertThat(table.partitionPath(Map.of("id", 7.0, "ts", LocalDateTime.of(2026, 1, 2, 0, 0)))).isEqualTo(path);
    table.append(List.of(Map.of("id", 7.0, "ts", LocalDateTime.of(2026, 1, 2, 0, 0))));
    assertThat(table.explainPruning(Expressions.alwaysTrue()).files())
        .singleElement().satisfies(f -> assertThat(f.location()).contains("/" + path + "/"));
    // what ingest refuses, the path refuses too (a fraction for a long, a timestamp Iceberg cannot hold)
    assertThatThrownBy(() -> table.partitionPath(Map.of("id", 7.5, "ts", "2026-01-02T00:00:00Z")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compute partition path: value of column id does not convert to long: 7.5");
    assertThatThrownBy(() -> table.partitionPath(Map.of("id", 1L, "ts", "+300000-01-01T00:00:00Z")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compute partition path: value of column ts does not convert to timestamptz: out of range: "
            + "+300000-01-01T00:00:00Z");
  }

  @Test
  void partitionPath_booleans_areTrueOrFalseOnly_asInIngest() {
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
        org.apache.iceberg.types.Types.NestedField.optional(1, "flag", org.apache.iceberg.types.Types.BooleanType.get()));
    FeatureTable table = store.createTable(dev.featurestore.TableDefinition.builder(dev.featurestore.TableId.of("p", "flags"), schema)
        .partitionBy(s -> PartitionSpec.builderFor(s).identity("flag").build()).build());
    assertThat(table.partitionPath(Map.of("flag", "TRUE"))).isEqualTo("flag=true");
    assertThat(table.partitionPath(Map.of("flag", false))).isEqualTo("flag=false");
    // "yes" used to become false silently; ingest refuses it, and so does the path now
    assertThatThrownBy(() -> table.partitionPath(Map.of("flag", "yes")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compute partition path: value of column flag does not convert to boolean: yes");
    assertThatThrownBy(() -> table.append(List.of(Map.of("flag", "yes"))))
        .isInstanceOf(dev.featurestore.InvalidDataException.class);
  }

  /**
   * Partition values convert as keys and ingest do (one conversion to Iceberg's internal values):
   * a time becomes micros, a nanosecond timestamp keeps its nanoseconds; a number for a date or
   * timestamp field is taken as already stored so.
   */
  @Test
  void partitionPathOf_convertsValuesAsKeysAndIngestDo() {
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
        org.apache.iceberg.types.Types.NestedField.optional(1, "t", org.apache.iceberg.types.Types.TimeType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(2, "ns",
            org.apache.iceberg.types.Types.TimestampNanoType.withZone()),
        org.apache.iceberg.types.Types.NestedField.optional(3, "ts", org.apache.iceberg.types.Types.TimestampType.withoutZone()));
    FeatureTable table = store.createTable(dev.featurestore.TableDefinition.builder(dev.featurestore.TableId.of("p", "times"), schema)
        .formatVersion(3)
        .partitionBy(s -> PartitionSpec.builderFor(s).identity("t").identity("ns").identity("ts").build()).build());
    Map<String, Object> row = Map.of("t", "10:15:30.5", "ns", "2026-01-02T03:04:05.123456789Z",
        "ts", "2026-01-02T03:04:05.25");
    String path = table.partitionPath(row);
    assertThat(path).isEqualTo("t=10%3A15%3A30.500/ns=2026-01-02T03%3A04%3A05.123456789%2B00%3A00/ts=2026-01-02T03%3A04%3A05.25");

    assertThat(table.partitionPathOf(List.of("10:15:30.5", "2026-01-02T03:04:05.123456789Z", "2026-01-02T03:04:05.25")))
        .isEqualTo(path);
    assertThat(table.partitionPathOf(List.of(java.time.LocalTime.of(10, 15, 30, 500_000_000),
        java.time.Instant.parse("2026-01-02T03:04:05.123456789Z"), LocalDateTime.of(2026, 1, 2, 3, 4, 5, 250_000_000))))
        .isEqualTo(path);
    long micros = java.time.temporal.ChronoUnit.MICROS.between(java.time.Instant.EPOCH,
        java.time.Instant.parse("2026-01-02T03:04:05.25Z"));
    long nanos = java.time.temporal.ChronoUnit.NANOS.between(java.time.Instant.EPOCH,
        java.time.Instant.parse("2026-01-02T03:04:05.123456789Z"));
    assertThat(table.partitionPathOf(List.of("10:15:30.5", nanos, micros))).as("numbers as stored").isEqualTo(path);
    assertThatThrownBy(() -> table.partitionPathOf(List.of("25:00", nanos, micros)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot compute partition path: value of partition field t does not convert to time: 25:00");
  }
}
