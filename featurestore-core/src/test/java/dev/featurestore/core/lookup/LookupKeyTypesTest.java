package dev.featurestore.core.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.DataFileBloomFilters;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.LookupResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookups by every key type a table can have, over real Parquet files: each Java form of a key that
 * ingest would store as the same value finds the row (the key converts by the one conversion ingest
 * uses, then to Iceberg's internal value: micros, days), a value one step off finds nothing, and
 * a null key or a value of the wrong type is a typed error naming table, column and value. Each
 * table is checked three ways: plain (statistics only), with a bloom filter on the key (the key's
 * hash must be the one Parquet wrote), and partitioned by the key (partition pruning).
 */
class LookupKeyTypesTest {
  static final OffsetDateTime TS = OffsetDateTime.parse("2026-03-01T10:15:30.123456Z");
  static final LocalDateTime LOCAL = LocalDateTime.parse("2026-03-01T10:15:30.123456");
  static final LocalDate DAY = LocalDate.parse("2026-03-01");
  static final LocalTime TIME = LocalTime.parse("10:15:30.123456");
  static final UUID UUID_KEY = UUID.fromString("9a3c6d7e-0000-4000-8000-00000000002a");

  /** Key types whose Parquet bloom filters the library probes (as Iceberg's row-group filter does). */
  static final Set<String> HASHED = Set.of("ts", "local", "day", "t", "u", "i", "s");

  @TempDir Path dir;

  /** One key column: the value row 42 holds, Java forms of it, a value no row holds, values of the wrong type. */
  record KeyCase(String column, org.apache.iceberg.types.Type type, Function<Integer, Object> stored,
      List<Object> forms, Object absent, List<Object> wrong) {}

  static List<KeyCase> cases() {
    return List.of(
        new KeyCase("ts", Types.TimestampType.withZone(), i -> TS.plusSeconds(i - 42),
            List.of(TS, TS.toInstant(), TS.withOffsetSameInstant(ZoneOffset.ofHours(2)),
                TS.atZoneSameInstant(ZoneId.of("Europe/Berlin")), "2026-03-01T10:15:30.123456Z",
                "2026-03-01T12:15:30.123456+02:00"),
            TS.plusNanos(1000), List.of(DAY, 42L, "not a time")),
        new KeyCase("local", Types.TimestampType.withoutZone(), i -> LOCAL.plusSeconds(i - 42),
            List.of(LOCAL, LOCAL.toInstant(ZoneOffset.UTC), "2026-03-01T10:15:30.123456"),
            LOCAL.plusNanos(1000), List.of(TIME, 42L, "yesterday")),
        new KeyCase("day", Types.DateType.get(), i -> DAY.plusDays(i - 42),
            List.of(DAY, "2026-03-01"), DAY.plusDays(1000), List.of(TS, 42, "2026-02-30")),
        new KeyCase("t", Types.TimeType.get(), i -> TIME.plusSeconds(i - 42),
            List.of(TIME, "10:15:30.123456"), TIME.plusNanos(1000), List.of(LOCAL, 42L, "noon")),
        new KeyCase("dec", Types.DecimalType.of(9, 3), i -> new BigDecimal(i + ".125"),
            List.of(new BigDecimal("42.125"), new BigDecimal("42.1250"), "42.125", 42.125),
            new BigDecimal("42.126"), List.of(new BigDecimal("42.1255"), "forty-two", TS)),
        new KeyCase("u", Types.UUIDType.get(), i -> new UUID(UUID_KEY.getMostSignificantBits(), UUID_KEY.getLeastSignificantBits() + i - 42),
            List.of(UUID_KEY, UUID_KEY.toString()), new UUID(1, 42), List.of("not-a-uuid", 42L)),
        new KeyCase("bin", Types.BinaryType.get(), i -> ByteBuffer.wrap(new byte[] {7, (byte) (int) i}),
            List.of(ByteBuffer.wrap(new byte[] {7, 42}), new byte[] {7, 42}), new byte[] {7, 43, 0},
            List.of(42L, TS)),
        new KeyCase("fixed", Types.FixedType.ofLength(3), i -> new byte[] {1, 2, (byte) (int) i},
            List.of(new byte[] {1, 2, 42}, ByteBuffer.wrap(new byte[] {1, 2, 42})), new byte[] {1, 2, 99},
            List.of(new byte[] {1, 2}, 42L)),
        new KeyCase("i", Types.IntegerType.get(), i -> i,
            List.of(42, 42L, (short) 42, "42"), 4200, List.of(1L << 40, 42.5, DAY)),
        new KeyCase("s", Types.StringType.get(), i -> "key-" + i,
            List.of("key-42", new StringBuilder("key-42")), "key-420", List.of(DAY, ByteBuffer.wrap(new byte[] {1}))),
        new KeyCase("flag", Types.BooleanType.get(), i -> i == 42,
            List.of(true, "true"), null, List.of(1, "yes")));
  }

  private static Schema schema() {
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    int id = 2;
    for (KeyCase c : cases()) {
      fields.add(Types.NestedField.optional(id++, c.column(), c.type()));
    }
    return new Schema(fields);
  }

  @Test
  void everyKeyType_findsItsRow_byEveryJavaForm_andNothingForAnAbsentKey() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      for (KeyCase c : cases()) {
        for (String layout : List.of("plain", "bloom", "partitioned")) {
          FeatureTable table = table(store, c, layout);
          for (Object form : c.forms()) {
            String as = c.column() + " " + layout + " as " + form.getClass().getSimpleName() + " " + show(form);
            assertThat(table.lookup(c.column()).get(form).row()).as(as).isPresent()
                .get().extracting(row -> row.get("id")).isEqualTo(42L);
            assertThat(table.lookup(c.column()).getAll(List.of(form)).rows()).as(as).hasSize(1);
          }
          if (c.absent() != null) {
            LookupResult absent = table.lookup(c.column()).get(c.absent());
            assertThat(absent.row()).as(c.column() + " " + layout + " absent").isEmpty();
            if (layout.equals("bloom") && HASHED.contains(c.column())) {
              // the key's hash is the one Parquet wrote: present forms pass the filter, the absent key does not
              DataFileBloomFilters blooms = table.readBloomFilters(
                  table.explainPruning(Expressions.alwaysTrue()).files().get(0).location());
              for (Object form : c.forms()) {
                assertThat(blooms.rowGroupsMightContain(c.column(), form)).as(c.column() + " " + show(form)).containsExactly(0);
              }
              assertThat(blooms.rowGroupsMightContain(c.column(), c.absent())).as(c.column()).isEmpty();
              assertThat(absent.stats().rowGroupsRead()).as(c.column() + " absent, bloom").isZero();
            }
          }
        }
      }
    }
  }

  @Test
  void everyKeyType_refusesANullKey_andAKeyOfTheWrongType_typed() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      for (KeyCase c : cases()) {
        FeatureTable table = table(store, c, "bloom");
        assertThatThrownBy(() -> table.lookup(c.column()).get(null)).as(c.column())
            .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage("Cannot look up rows: key is null: null");
        assertThatThrownBy(() -> table.lookup(c.column()).getAll(Arrays.asList(c.forms().get(0), null))).as(c.column())
            .isExactlyInstanceOf(InvalidArgumentException.class)
            .hasMessage("Cannot look up rows of table " + table.id() + ": key is null: null");
        for (Object wrong : c.wrong()) {
          String message = "Cannot look up rows of table " + table.id() + ": key does not convert to column "
              + c.column() + " (" + c.type() + "): " + show(wrong);
          assertThatThrownBy(() -> table.lookup(c.column()).get(wrong)).as(c.column() + " " + show(wrong))
              .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message);
          assertThatThrownBy(() -> table.lookup(c.column()).getAll(List.of(c.forms().get(0), wrong)))
              .as(c.column() + " " + show(wrong))
              .isExactlyInstanceOf(InvalidArgumentException.class).hasMessage(message);
        }
      }
    }
  }

  /** A key is converted before anything is read: a bad key fails on a table without a snapshot too. */
  @Test
  void aKeyOfTheWrongType_failsOnAnEmptyTable_too() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("k.empty", schema()).build());
      assertThat(table.lookup("ts").get(TS).row()).isEmpty();
      assertThatThrownBy(() -> table.lookup("ts").get(42L)).isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot look up rows of table k.empty: key does not convert to column ts (timestamptz): 42");
    }
  }

  private static FeatureTable table(FeatureStore store, KeyCase c, String layout) {
    TableDefinition.Builder def = TableDefinition.builder("k." + c.column() + "_" + layout, schema());
    if (layout.equals("bloom")) {
      def.bloomFilter(c.column(), 100);
    }
    if (layout.equals("partitioned")) {
      def.partitionBy(s -> PartitionSpec.builderFor(s).identity(c.column()).build());
    }
    FeatureTable table = store.createTable(def.build());
    List<Record> rows = new ArrayList<>();
    for (int i = 40; i < 45; i++) {
      rows.add(TestTables.record(table, "id", (long) i, c.column(), c.stored().apply(i)));
    }
    TestTables.append(table, rows);
    return table;
  }

  private static String show(Object value) {
    return value instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(value);
  }
}
