package dev.featurestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PartitionSpecBuilderTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "entity_id", Types.LongType.get()),
      Types.NestedField.required(2, "event_time", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "category", Types.StringType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()),
      Types.NestedField.optional(5, "day", Types.DateType.get()),
      Types.NestedField.optional(6, "updated_at", Types.TimestampType.withoutZone()));

  @Test
  void everyTransform_buildsTheSpecIcebergWould() {
    PartitionSpec ours = PartitionSpecBuilder.of(SCHEMA)
        .identity("category").year("day").month("event_time").hour("updated_at")
        .bucket("entity_id", 16).truncate("category", 2).alwaysNull("score").build();
    PartitionSpec iceberg = PartitionSpec.builderFor(SCHEMA)
        .identity("category").year("day").month("event_time").hour("updated_at")
        .bucket("entity_id", 16).truncate("category", 2).alwaysNull("score").build();
    assertThat(ours).isEqualTo(iceberg);
    assertThat(ours.fields()).extracting(f -> f.name()).containsExactly(
        "category", "day_year", "event_time_month", "updated_at_hour", "entity_id_bucket", "category_trunc", "score_null");
  }

  @Test
  void unknownColumn_fails() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).day("x"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot partition by unknown column: x");
  }

  @Test
  void dayOnALong_fails() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).day("entity_id"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot partition column entity_id by day: transform not valid for type: long"
            + " (day needs a date or timestamp column)");
  }

  @Test
  void hourOnADate_fails() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).hour("day"))
        .hasMessage("Cannot partition column day by hour: transform not valid for type: date (hour needs a timestamp column)");
  }

  @Test
  void truncateOnADouble_fails() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).truncate("score", 10))
        .hasMessage("Cannot partition column score by truncate: transform not valid for type: double"
            + " (truncate needs an int, long, decimal, string or binary column)");
  }

  @Test
  void bucketOnADouble_andNonPositiveArguments_fail() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).bucket("score", 4))
        .hasMessageStartingWith("Cannot partition column score by bucket: transform not valid for type: double");
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).bucket("entity_id", 0))
        .hasMessage("Cannot partition column entity_id by bucket: bucket count must be positive: 0");
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).truncate("category", -1))
        .hasMessage("Cannot partition column category by truncate: width must be positive: -1");
  }

  @Test
  void duplicateName_fails() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).bucket("entity_id", 4, "p").truncate("category", 2, "p"))
        .hasMessage("Cannot add partition field: duplicate name: p");
  }

  @Test
  void redundantTimeTransforms_failWithIcebergsReason() {
    assertThatThrownBy(() -> PartitionSpecBuilder.of(SCHEMA).day("event_time").hour("event_time"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot partition column event_time by hour: ");
  }

  @Test
  void spec_isUsableInATableDefinition() {
    TableDefinition def = TableDefinition.builder("a.b", SCHEMA)
        .partitionBy(PartitionSpecBuilder.spec(b -> b.day("event_time").bucket("entity_id", 8)))
        .build();
    assertThat(def.partitionSpec().fields()).extracting(f -> f.name())
        .containsExactly("event_time_day", "entity_id_bucket");
  }

  @Test
  void bloomFilterColumns_areTableProperties() {
    TableDefinition def = TableDefinition.builder("a.b", SCHEMA).bloomFilter("entity_id", 50_000).build();
    assertThat(BloomFilterColumn.fromProperties(def.properties()))
        .containsEntry("entity_id", new BloomFilterColumn("entity_id", java.util.OptionalLong.of(50_000), 0.01));
    assertThatThrownBy(() -> TableDefinition.builder("a.b", SCHEMA).bloomFilter("nope", 10))
        .isExactlyInstanceOf(dev.featurestore.InvalidArgumentException.class)
        .hasMessage("Cannot add bloom filter: unknown column: nope");
  }
}
