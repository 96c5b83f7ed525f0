package dev.featurestore.core.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionFunction} computes exactly what Iceberg's {@link PartitionKey} computes, for every
 * transform it shortcuts (day, hour, month, year on timestamps and dates, identity) and those it
 * hands to Iceberg (bucket, truncate, void), on values before and after the epoch, at unit
 * boundaries and nulls, from generic and from internal rows.
 */
class PartitionFunctionTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "tz", Types.TimestampType.withZone()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(3, "d", Types.DateType.get()),
      Types.NestedField.optional(4, "id", Types.LongType.get()),
      Types.NestedField.optional(5, "s", Types.StringType.get()),
      Types.NestedField.optional(6, "st", Types.StructType.of(
          Types.NestedField.optional(7, "inner", Types.IntegerType.get()))));

  private static final long DAY = 86_400_000_000L;

  @Test
  void timeTransforms_equalIcebergs_onBothSidesOfTheEpoch() {
    for (String unit : new String[] {"day", "hour", "month", "year"}) {
      check(spec(b -> {
        switch (unit) {
          case "day" -> b.day("tz").day("ts").day("d");
          case "hour" -> b.hour("tz").hour("ts").identity("d");
          case "month" -> b.month("tz").month("ts").month("d");
          default -> b.year("tz").year("ts").year("d");
        }
      }));
    }
  }

  @Test
  void identityBucketTruncateVoid_equalIcebergs() {
    check(spec(b -> b.identity("id").identity("s").identity("tz").identity("d")));
    check(spec(b -> b.bucket("id", 16).truncate("s", 3).bucket("tz", 8).alwaysNull("d")));
    check(spec(b -> b.truncate("id", 10).bucket("s", 4)));
  }

  @Test
  void nestedSourceColumn_usesIcebergsKey() {
    check(spec(b -> b.identity("st.inner").day("tz")));
  }

  private static PartitionSpec spec(Consumer<PartitionSpec.Builder> fields) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(SCHEMA);
    fields.accept(builder);
    return builder.build();
  }

  private static void check(PartitionSpec spec) {
    PartitionFunction generic = new PartitionFunction(spec, SCHEMA, false);
    PartitionFunction internal = new PartitionFunction(spec, SCHEMA, true);
    PartitionKey expected = new PartitionKey(spec, SCHEMA);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(SCHEMA.asStruct());
    SplittableRandom random = new SplittableRandom(7);
    GenericRecord row = GenericRecord.create(SCHEMA);
    GenericRecord internalRow = GenericRecord.create(SCHEMA);
    for (int i = 0; i < 20_000; i++) {
      long micros = micros(random, i);
      int days = (int) Math.floorDiv(micros, DAY);
      boolean nulls = random.nextInt(20) == 0;
      OffsetDateTime tz = OffsetDateTime.of(LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC), ZoneOffset.UTC);
      row.set(0, nulls ? null : tz);
      row.set(1, nulls ? null : tz.toLocalDateTime());
      row.set(2, nulls ? null : LocalDate.ofEpochDay(days));
      row.set(3, nulls ? null : random.nextLong() >> random.nextInt(64));
      row.set(4, nulls ? null : "v" + random.nextInt(1000));
      GenericRecord inner = GenericRecord.create(SCHEMA.findField("st").type().asStructType());
      inner.set(0, random.nextInt(5));
      row.set(5, inner);
      for (int c = 0; c < 6; c++) {
        internalRow.set(c, row.get(c));
      }
      internalRow.set(0, nulls ? null : micros);
      internalRow.set(1, nulls ? null : micros);
      internalRow.set(2, nulls ? null : days);

      expected.partition(wrapper.wrap(row));
      generic.partition(row);
      internal.partition(internalRow);
      for (int f = 0; f < spec.fields().size(); f++) {
        Object want = expected.get(f, Object.class);
        assertThat(generic.value(f)).as("%s of %s (generic)", spec.fields().get(f), tz).isEqualTo(want);
        assertThat(internal.value(f)).as("%s of %s (internal)", spec.fields().get(f), tz).isEqualTo(want);
      }
    }
  }

  /** Micros around the epoch, at unit boundaries (and one off), across centuries, and recent. */
  private static long micros(SplittableRandom random, int i) {
    switch (i % 5) {
      case 0:
        return random.nextLong(-200L * 365 * DAY, 200L * 365 * DAY);
      case 1:
        return random.nextLong(-3, 3) * 3_600_000_000L + random.nextInt(-1, 2);
      case 2:
        return random.nextLong(-400, 400) * DAY + random.nextInt(-1, 2);
      case 3:
        return random.nextLong(-10L * DAY, 10L * DAY);
      default:
        return 1_764_000_000_000_000L + random.nextLong(30L * DAY);
    }
  }
}
