package dev.featurestore.core.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.BiFunction;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.parquet.InternalWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PrimitiveRowWriter} writes the file Iceberg's {@link InternalWriter} writes for the same
 * rows, byte for byte, with the same metrics: every slot kind required and optional, nulls, NaNs,
 * negative zeros, values before the epoch, beside object columns of every other shape, over many
 * pages and row groups.
 */
class PrimitiveRowWriterTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "entity_id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.required(3, "event_time", Types.TimestampType.withZone()),
      Types.NestedField.optional(4, "local_time", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(5, "a", Types.DoubleType.get()),
      Types.NestedField.required(6, "b", Types.DoubleType.get()),
      Types.NestedField.optional(7, "f", Types.FloatType.get()),
      Types.NestedField.required(8, "g", Types.FloatType.get()),
      Types.NestedField.optional(9, "i", Types.IntegerType.get()),
      Types.NestedField.optional(10, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(11, "day", Types.DateType.get()),
      Types.NestedField.optional(12, "at", Types.TimeType.get()),
      Types.NestedField.optional(13, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(14, "id", Types.UUIDType.get()),
      Types.NestedField.optional(15, "raw", Types.BinaryType.get()),
      Types.NestedField.optional(16, "code", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(17, "point", Types.StructType.of(
          Types.NestedField.required(18, "x", Types.DoubleType.get()),
          Types.NestedField.optional(19, "label", Types.StringType.get()))),
      Types.NestedField.optional(20, "tags", Types.ListType.ofOptional(21, Types.StringType.get())),
      Types.NestedField.optional(22, "counts", Types.MapType.ofRequired(23, 24, Types.StringType.get(),
          Types.LongType.get())),
      Types.NestedField.required(25, "nanos", Types.TimestampNanoType.withZone()),
      Types.NestedField.optional(26, "n", Types.LongType.get()));

  @TempDir
  Path dir;

  @Test
  void primitiveRows_writeTheFileAndMetricsOfIcebergsInternalWriter() throws IOException {
    List<Object[]> rows = rows(20_000);
    DataFile iceberg = write(dir.resolve("iceberg.parquet"), InternalWriter::createWriter, rows, false);
    DataFile ours = write(dir.resolve("ours.parquet"), PrimitiveRowWriter::create, rows, true);

    assertThat(ours.recordCount()).isEqualTo(20_000);
    assertThat(ours.splitOffsets()).hasSizeGreaterThan(1); // several row groups
    assertThat(ours.valueCounts()).isEqualTo(iceberg.valueCounts());
    assertThat(ours.nullValueCounts()).isEqualTo(iceberg.nullValueCounts());
    assertThat(ours.nanValueCounts()).isEqualTo(iceberg.nanValueCounts());
    assertThat(ours.nanValueCounts().get(5)).isPositive();
    assertThat(ours.lowerBounds()).isEqualTo(iceberg.lowerBounds());
    assertThat(ours.upperBounds()).isEqualTo(iceberg.upperBounds());
    assertThat(ours.columnSizes()).isEqualTo(iceberg.columnSizes());
    assertThat(ours.splitOffsets()).isEqualTo(iceberg.splitOffsets());
    assertThat(Files.readAllBytes(dir.resolve("ours.parquet"))).isEqualTo(Files.readAllBytes(dir.resolve("iceberg.parquet")));
  }

  @Test
  void primitiveRow_boxesAndUnboxesEveryKind() {
    PrimitiveRow row = new PrimitiveRow(SCHEMA.asStruct());
    Object[] values = rows(50).get(7);
    for (int i = 0; i < values.length; i++) {
      row.set(i, values[i]);
    }
    for (int i = 0; i < values.length; i++) {
      assertThat(row.get(i, Object.class)).as("column %s", i).isEqualTo(values[i]);
    }
  }

  private static DataFile write(Path file, BiFunction<Schema, MessageType, ParquetValueWriter<?>> writers,
      List<Object[]> rows, boolean primitive) throws IOException {
    DataWriter<StructLike> writer = Parquet.writeData(org.apache.iceberg.Files.localOutput(file.toFile()))
        .schema(SCHEMA)
        .createWriterFunc(writers)
        .set("write.parquet.page-size-bytes", "4096")
        .set("write.parquet.row-group-size-bytes", "131072")
        .set("write.parquet.compression-codec", "zstd")
        .withSpec(PartitionSpec.unpartitioned())
        .overwrite()
        .build();
    StructLike row = primitive ? new PrimitiveRow(SCHEMA.asStruct()) : GenericRecord.create(SCHEMA);
    try (writer) {
      for (Object[] values : rows) {
        for (int i = 0; i < values.length; i++) {
          row.set(i, values[i]);
        }
        writer.write(row);
      }
    }
    return writer.toDataFile();
  }

  /** Rows of Iceberg's internal values; optional columns null in about a tenth of the rows. */
  private static List<Object[]> rows(int n) {
    SplittableRandom r = new SplittableRandom(7);
    List<Object[]> rows = new ArrayList<>();
    double[] specialDoubles = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.MAX_VALUE};
    for (int k = 0; k < n; k++) {
      Object[] v = new Object[SCHEMA.columns().size()];
      v[0] = r.nextLong(-1_000, 1_000_000);
      v[1] = "name-" + r.nextInt(300);
      v[2] = r.nextLong(-86_400_000_000L * 400, 86_400_000_000L * 400);
      v[3] = r.nextLong();
      v[4] = r.nextInt(20) == 0 ? specialDoubles[r.nextInt(specialDoubles.length)] : r.nextGaussian();
      v[5] = r.nextInt(500) == 0 ? Double.NaN : r.nextGaussian() * 1e6;
      v[6] = r.nextInt(20) == 0 ? Float.NaN : (float) r.nextGaussian();
      v[7] = r.nextInt(50) == 0 ? -0.0f : (float) r.nextInt(100);
      v[8] = r.nextInt();
      v[9] = r.nextBoolean();
      v[10] = r.nextInt(-1000, 30_000);
      v[11] = r.nextLong(86_400_000_000L);
      v[12] = BigDecimal.valueOf(r.nextLong(-1_000_000_000L, 1_000_000_000L), 2);
      v[13] = new UUID(r.nextLong(), r.nextLong());
      v[14] = ByteBuffer.wrap(new byte[] {(byte) r.nextInt(), (byte) r.nextInt()});
      v[15] = ByteBuffer.wrap(new byte[] {(byte) r.nextInt(), (byte) r.nextInt(), (byte) r.nextInt()});
      GenericRecord point = GenericRecord.create(SCHEMA.findType("point").asStructType());
      point.set(0, r.nextGaussian());
      point.set(1, r.nextBoolean() ? null : "p" + r.nextInt(10));
      v[16] = point;
      v[17] = r.nextBoolean() ? List.of("x", "y") : new ArrayList<>(java.util.Arrays.asList("z", null));
      Map<String, Long> counts = new LinkedHashMap<>();
      counts.put("k" + r.nextInt(5), r.nextLong());
      v[18] = counts;
      v[19] = r.nextLong();
      v[20] = r.nextLong(100);
      for (int i = 0; i < v.length; i++) {
        if (SCHEMA.columns().get(i).isOptional() && r.nextInt(10) == 0) {
          v[i] = null;
        }
      }
      rows.add(v);
    }
    return rows;
  }
}
