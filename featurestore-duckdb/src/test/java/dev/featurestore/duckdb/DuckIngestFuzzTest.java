package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckIngestSupport.Outcome;
import static dev.featurestore.duckdb.DuckIngestSupport.dataFiles;
import static dev.featurestore.duckdb.DuckIngestSupport.engine;
import static dev.featurestore.duckdb.DuckIngestSupport.rows;
import static dev.featurestore.duckdb.DuckIngestSupport.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random CSV files built from the awkward corners of every type and of the CSV format itself
 * (numbers DuckDB reads and the Java path refuses or reads otherwise, overflow and underflow,
 * timestamps with and without offsets, leap seconds, quoted fields with spaces around them,
 * trailing commas, blank lines, line breaks, a byte order mark), each ingested on both paths: the
 * outcomes must be the same (the same rows, or the same typed error with the table unchanged and
 * no file left). Reproducible from {@code -Dfuzz.seed=}; {@code -Dfuzz.files=} sets the count.
 */
class DuckIngestFuzzTest {
  @TempDir Path dir;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "d", Types.DoubleType.get()),
      Types.NestedField.optional(3, "i", Types.IntegerType.get()),
      Types.NestedField.optional(4, "dec", Types.DecimalType.of(6, 2)),
      Types.NestedField.optional(5, "b", Types.BooleanType.get()),
      Types.NestedField.optional(6, "dt", Types.DateType.get()),
      Types.NestedField.optional(7, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(8, "lts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(9, "s", Types.StringType.get()),
      Types.NestedField.optional(10, "t", Types.TimeType.get()));

  /** Per column: plain values first (the engine takes them), then the awkward ones. */
  static final String[][] VALUES = {
      {"0", "1", "-1", "42", "9223372036854775807", "-9223372036854775808",
          "9223372036854775808", " 5", "5 ", "+5", "007", "-0", "1_000", "0x10", "0b11", "1e3", "1.0", "1.5", "abc", "5L"},
      {"0", "0.0", "-0.0", "1.5", "-1.5", "1e10", "1E-5", "1.5e+3", "0.1", "123456.789012345678",
          ".5", "5.", "+.5", "1e400", "-1e400", "1e-400", "4.9e-324", "2.4e-324", "1.7976931348623157e308",
          "1.7976931348623159e308", "NaN", "nan", "Infinity", "-Infinity", "inf", "1_0", "0x1p3", "1.5d", "1.5f",
          " 2.5", "2.5 ", "1e", "e1", ".", "-", "abc", "0e10", "00.10", "1,5"},
      {"0", "7", "-7", "2147483647", "-2147483648", "2147483648", "1.0", "+3", " 3", "3_0", "x"},
      {"0", "1.5", "1.50", "-1.25", "9999.99", "12", "1.505", "10000.00", "1e2", "1.", " .5", ".5", "+1.5",
          "1_0.5", "-0.00", "abc", "99999", "1.5 "},
      {"true", "false", "TRUE", "False", "t", "yes", "1", " true", "tRuE", "truee"},
      {"2024-01-01", "1969-12-31", "2000-02-29", "2024-1-1", "2023-02-29", "0001-01-01", "9999-12-31",
          "2024-01-01T00:00:00", " 2024-01-01", "+12345-01-01", "20240101"},
      {"2024-01-01T10:00:00Z", "2024-01-01 10:00:00", "2024-01-01T10:00", "2024-01-01",
          "2024-01-01T10:00:00.123456Z", "1969-12-31T23:59:59.999999Z", "1900-01-01T00:00:00Z",
          "2024-01-01T10:00:00+05:30", "2024-01-01T10:00:00-08:00", "2024-01-01T10:00:00+18:00",
          "2024-01-01T10:00:00.1234567Z", "2024-01-01T10:00:00+19:00", "2024-01-01T24:00:00",
          "2024-01-01T23:59:60", "2024-01-01T10:00:00z", "2024-01-01t10:00:00", "2024-01-01T10:00:00+0530",
          "2024-01-01T10:00:00+05", "2024-13-01T00:00:00", " 2024-01-01T10:00:00Z", "0999-01-01T00:00:00Z"},
      {"2024-01-01T10:00:00", "2024-01-01 10:00:00.5", "2024-01-01", "2024-01-01T10:00:00+02:00",
          "2024-01-01T10:00:00Z", "2024-01-01T10:00:00.1234567", "2024-02-30T00:00:00", "x"},
      {"x", "a b", " lead", "trail ", "\"quoted\"", "\"a,b\"", "\"with \"\"q\"\"\"", "\"multi\nline\"", "ünï", "😀",
          "NULL", "\\N", "a\"b", "\"\"", "'"},
      {"10:00", "10:00:00", "23:59:59.999999", "00:00:00.5", "24:00", "10:00:00.1234567", "1:00", "10:60"}};

  /** How many leading values of each column are plain. */
  static final int[] PLAIN = {6, 10, 5, 6, 4, 3, 10, 5, 12, 4};

  @Test
  void randomFiles_sameOutcomeOnBothPaths() throws IOException {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    int files = Integer.getInteger("fuzz.files", 120);
    Random random = new Random(seed);
    int engineWrote = 0;
    int failed = 0;
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      for (int n = 0; n < files; n++) {
        boolean plain = random.nextInt(3) == 0;
        String csv = csv(random, plain);
        Path file = dir.resolve("f" + n + ".csv");
        Files.write(file, bytes(csv, random.nextInt(30) == 0));
        Function<Schema, PartitionSpec> spec = random.nextBoolean()
            ? s -> PartitionSpec.unpartitioned()
            : s -> PartitionSpec.builderFor(s).day("ts").identity("b").build();
        FeatureTable ours = table(store, "f" + n, SCHEMA, spec, false);
        FeatureTable java = table(store, "f" + n + "_java", SCHEMA, spec, true);
        Outcome a = Outcome.of(ours, i -> i.csv(file));
        Outcome b = Outcome.of(java, i -> i.csv(file));
        String context = "seed " + seed + ", file " + n + ":\n" + csv;
        assertThat(a.failure()).as(context).isEqualTo(b.failure());
        if (b.failure() == null) {
          assertThat(rows(ours)).as(context).isEqualTo(rows(java));
          if (engine(ours).isPresent()) {
            engineWrote++;
          }
        } else {
          failed++;
          assertThat(ours.unwrap(Table.class).currentSnapshot()).as(context).isNull();
          assertThat(dataFiles(ours)).as(context).isEmpty();
        }
        store.dropTable(TableId.of("ingest", "f" + n), true);
        store.dropTable(TableId.of("ingest", "f" + n + "_java"), true);
      }
    }
    System.out.printf("fuzz seed %d: %d files, %d written by the engine, %d failed on both paths%n", seed, files,
        engineWrote, failed);
    // the comparison means something only if both kinds of outcome occurred
    assertThat(engineWrote).as("files the engine wrote (seed %s)", seed).isGreaterThan(files / 10);
    assertThat(failed).as("files that failed (seed %s)", seed).isGreaterThan(files / 10);
  }

  /** A header and up to 8 rows; plain files draw only plain values. */
  static String csv(Random random, boolean plain) {
    String newline = !plain && random.nextInt(8) == 0 ? "\r\n" : "\n";
    StringBuilder csv = new StringBuilder("id,d,i,dec,b,dt,ts,lts,s,t").append(newline);
    int rows = 1 + random.nextInt(8);
    for (int r = 0; r < rows; r++) {
      List<String> fields = new ArrayList<>();
      for (int c = 0; c < VALUES.length; c++) {
        String[] values = VALUES[c];
        boolean empty = c > 0 && random.nextInt(8) == 0;
        String value = empty ? "" : plain || random.nextInt(4) > 0
            ? values[random.nextInt(PLAIN[c])] : values[random.nextInt(values.length)];
        if (!plain && random.nextInt(25) == 0 && !value.contains("\"")) {
          value = random.nextBoolean() ? "\"" + value + "\"" : " \"" + value + "\" ";
        }
        fields.add(value);
      }
      String line = String.join(",", fields);
      if (!plain) {
        switch (random.nextInt(40)) {
          case 0 -> line = line + ",";
          case 1 -> line = line.substring(0, line.lastIndexOf(','));
          case 2 -> line = line + newline;
          case 3 -> line = line + ",,";
          default -> { }
        }
      }
      csv.append(line).append(newline);
    }
    if (!plain && random.nextInt(10) == 0) {
      csv.setLength(csv.length() - newline.length());
    }
    return csv.toString();
  }

  private static byte[] bytes(String csv, boolean byteOrderMark) {
    byte[] text = csv.getBytes(StandardCharsets.UTF_8);
    if (!byteOrderMark) {
      return text;
    }
    byte[] bytes = new byte[text.length + 3];
    bytes[0] = (byte) 0xEF;
    bytes[1] = (byte) 0xBB;
    bytes[2] = (byte) 0xBF;
    System.arraycopy(text, 0, bytes, 3, text.length);
    return bytes;
  }
}
