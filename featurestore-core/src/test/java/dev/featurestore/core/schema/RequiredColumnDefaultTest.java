package dev.featurestore.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.TableDefinition;
import dev.featurestore.ValidationException;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RequiredColumnDefaultTest extends LocalStoreTest {
  static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  FeatureTable table(int formatVersion) {
    FeatureTable table = store.createTable(TableDefinition.builder("s.v" + formatVersion, SCHEMA)
        .formatVersion(formatVersion).build());
    table.append(List.of(Map.of("id", 1L), Map.of("id", 2L)));
    return table;
  }

  @Test
  void addRequiredColumn_v3_oldRowsReadTheDefault_andOmittedValuesAreWritten() {
    FeatureTable table = table(3);

    Schema schema = table.evolveSchema()
        .addRequiredColumn("tier", Types.StringType.get(), "standard", "pricing tier")
        .addRequiredColumn("weight", Types.LongType.get(), 7) // an int widens
        .addRequiredColumn("since", Types.DateType.get(), "2026-01-01")
        .addRequiredColumn("seen", Types.TimestampType.withZone(), "2026-01-01T10:00:00Z")
        .commit();

    Types.NestedField tier = schema.findField("tier");
    assertThat(tier.isRequired()).isTrue();
    assertThat(tier.doc()).isEqualTo("pricing tier");
    assertThat(tier.initialDefault()).hasToString("standard");
    assertThat(tier.writeDefault()).hasToString("standard");
    assertThat(schema.findField("weight").initialDefault()).isEqualTo(7L);
    // as Iceberg stores it in the metadata
    Table iceberg = table.unwrap(Table.class);
    assertThat(iceberg.schema().findField("since").initialDefault()).isEqualTo((int) LocalDate.parse("2026-01-01").toEpochDay());

    table.append(List.of(Map.of("id", 3L), Map.of("id", 4L, "tier", "gold", "weight", 1L)));

    List<Map<String, Object>> rows = table.query().execute().toList();
    rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
    OffsetDateTime seen = OffsetDateTime.parse("2026-01-01T10:00:00Z");
    LocalDate since = LocalDate.parse("2026-01-01");
    assertThat(rows).containsExactly(
        Map.of("id", 1L, "tier", "standard", "weight", 7L, "since", since, "seen", seen),
        Map.of("id", 2L, "tier", "standard", "weight", 7L, "since", since, "seen", seen),
        Map.of("id", 3L, "tier", "standard", "weight", 7L, "since", since, "seen", seen),
        Map.of("id", 4L, "tier", "gold", "weight", 1L, "since", since, "seen", seen));
  }

  @Test
  void addRequiredColumn_explicitNull_isStillRefused() {
    FeatureTable table = table(3);
    table.evolveSchema().addRequiredColumn("tier", Types.StringType.get(), "standard").commit();
    java.util.HashMap<String, Object> row = new java.util.HashMap<>();
    row.put("id", 5L);
    row.put("tier", null);
    assertThatThrownBy(() -> table.append(List.of(row)))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column tier is required: null");
  }

  @Test
  void addRequiredColumn_v2_isRefused() {
    FeatureTable table = table(2);
    assertThatThrownBy(() -> table.evolveSchema().addRequiredColumn("tier", Types.StringType.get(), "standard"))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot add required column tier: column defaults need format version 3: 2");
    assertThat(table.schema().findField("tier")).isNull();
  }

  @Test
  void addRequiredColumn_badArguments_areRefused() {
    FeatureTable table = table(3);
    assertThatThrownBy(() -> table.evolveSchema().addRequiredColumn("n", Types.LongType.get(), "seven"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add required column n: default does not convert to long: seven");
    assertThatThrownBy(() -> table.evolveSchema().addRequiredColumn("n", Types.LongType.get(), null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add required column: defaultValue is null: null");
    assertThatThrownBy(() -> table.evolveSchema().addRequiredColumn("id", Types.LongType.get(), 1L))
        .isExactlyInstanceOf(ValidationException.class)
        .hasMessage("Cannot add required column: column already exists: id");
    assertThatThrownBy(() -> table.evolveSchema().addRequiredColumn("l",
        Types.ListType.ofOptional(9, Types.LongType.get()), List.of()))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add required column l: a default needs a primitive type: list<long>");
  }
}
