package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckIngestSupport.Outcome;
import static dev.featurestore.duckdb.DuckIngestSupport.checkPartitions;
import static dev.featurestore.duckdb.DuckIngestSupport.dataFiles;
import static dev.featurestore.duckdb.DuckIngestSupport.engine;
import static dev.featurestore.duckdb.DuckIngestSupport.rows;
import static dev.featurestore.duckdb.DuckIngestSupport.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestProgress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSV and Parquet ingests written by DuckDB ({@link DuckIngestEngine}) against the same ingests on
 * the Java path (a table with {@code featurestore.ingest.engine=java}): the same rows, each data
 * file holding only its partition's rows and readable by Iceberg's generic reader, the same typed
 * error for every bad file with the table unchanged and no file left behind.
 */
class DuckIngestTest {
  @TempDir static Path dir;
  static FeatureStore store;
  static int tables;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "entity_id", Types.LongType.get()),
      Types.NestedField.required(2, "event_time", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "feature_a", Types.DoubleType.get()),
      Types.NestedField.optional(4, "clicks", Types.IntegerType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(6, "label", Types.StringType.get()),
      Types.NestedField.optional(7, "country", Types.StringType.get()),
      Types.NestedField.optional(8, "active", Types.BooleanType.get()),
      Types.NestedField.optional(9, "birthday", Types.DateType.get()),
      Types.NestedField.optional(10, "local_time", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(11, "uid", Types.StringType.get()),
      Types.NestedField.optional(12, "at", Types.TimeType.get()));

  static final String HEADER = "entity_id,event_time,feature_a,clicks,amount,label,country,active,birthday,local_time,uid,at";

  @BeforeAll
  static void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
  }

  @AfterAll
  static void close() {
    store.close();
  }

  /** A pair of tables with the same definition: the first takes the engine, the second the Java path. */
  static FeatureTable[] pair(Function<Schema, PartitionSpec> spec) {
    int n = tables++;
    return new FeatureTable[] {table(store, "t" + n, SCHEMA, spec, false), table(store, "t" + n + "_java", SCHEMA, spec, true)};
  }

  static Function<Schema, PartitionSpec> dayAndCountry() {
    return s -> PartitionSpec.builderFor(s).day("event_time").identity("country").build();
  }

  /** Plain, canonical values of every type (what exports and pandas write), with nulls and awkward strings. */
  static String canonicalCsv(int rows, long seed) {
    Random random = new Random(seed);
    StringBuilder csv = new StringBuilder(HEADER).append('\n');
    String[] countries = {"us", "de", "fr", "jp", "", "\"a,b\"", "ünï", "\"x\"\"y\""};
    String[] labels = {"plain", "\"with, comma\"", "\"with \"\"quotes\"\"\"", "\"two\nlines\"", "emoji 😀", "", " spaced ",
        "ab'c", "%2F/=", "__HIVE_DEFAULT_PARTITION__", "NULL"};
    for (int i = 0; i < rows; i++) {
      long micros = 1_764_000_000_000_000L + (long) (random.nextDouble() * 10 * 86_400e6) - 3 * 86_400_000_000L;
      java.time.LocalDateTime utc = java.time.LocalDateTime.ofEpochSecond(micros / 1_000_000,
          (int) (micros % 1_000_000) * 1000, java.time.ZoneOffset.UTC);
      String seconds = utc.format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss"));
      String time = switch (i % 4) {
        case 0 -> seconds + "." + String.format("%06d", micros % 1_000_000) + "Z";
        case 1 -> seconds.replace('T', ' ') + "+02:00";
        case 2 -> seconds;
        default -> seconds.substring(0, 10);
      };
      csv.append(random.nextInt(40) - 10).append(',')
          .append(time).append(',')
          .append(switch (i % 6) {
            case 0 -> Double.toString(random.nextGaussian());
            case 1 -> "";
            case 2 -> "-0.0";
            case 3 -> "1.5e-3";
            case 4 -> Double.toString(random.nextDouble() * 1e300);
            default -> Long.toString(random.nextInt());
          }).append(',')
          .append(i % 7 == 0 ? "" : Integer.toString(random.nextInt())).append(',')
          .append(i % 5 == 0 ? "" : (random.nextInt(20) - 10) + "." + (random.nextBoolean() ? "05" : "5"))
          .append(',')
          .append(labels[random.nextInt(labels.length)]).append(',')
          .append(countries[random.nextInt(countries.length)]).append(',')
          .append(switch (i % 5) {
            case 0 -> "true";
            case 1 -> "FALSE";
            case 2 -> "True";
            case 3 -> "";
            default -> "false";
          }).append(',')
          .append(i % 3 == 0 ? "" : java.time.LocalDate.ofEpochDay(random.nextInt(60) - 30)).append(',')
          .append(i % 4 == 0 ? "" : time.length() == 10 ? time + "T00:00:00" : time).append(',')
          .append(i % 2 == 0 ? "" : new java.util.UUID(random.nextLong(), random.nextLong())).append(',')
          .append(i % 3 == 0 ? "" : String.format("%02d:%02d:%02d.%03d", random.nextInt(24), random.nextInt(60),
              random.nextInt(60), random.nextInt(1000)))
          .append('\n');
    }
    return csv.toString();
  }

  static Path write(String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void csv_engineWritesTheJavaPathsRows() throws IOException {
    Path file = write("canonical.csv", canonicalCsv(3000, 1));
    FeatureTable[] t = pair(dayAndCountry());
    Outcome ours = Outcome.of(t[0], i -> i.csv(file));
    Outcome java = Outcome.of(t[1], i -> i.csv(file));

    assertThat(ours.failure()).isNull();
    assertThat(java.failure()).isNull();
    assertThat(engine(t[0])).contains("duckdb");
    assertThat(engine(t[1])).isEmpty();
    assertThat(ours.result().rows()).isEqualTo(3000).isEqualTo(java.result().rows());
    assertThat(rows(t[0])).isEqualTo(rows(t[1]));
    assertThat(checkPartitions(t[0])).isEqualTo(3000);
    assertThat(t[0].unwrap(Table.class).currentSnapshot().summary())
        .containsEntry("featurestore.ingest.source", "csv");
  }

  @Test
  void csv_everyPartitionTransform_matchesIcebergs() throws IOException {
    Path file = write("transforms.csv", canonicalCsv(600, 2));
    Path small = write("transforms-small.csv", canonicalCsv(40, 7));
    List<Function<Schema, PartitionSpec>> specs = List.of(
        s -> PartitionSpec.unpartitioned(),
        s -> PartitionSpec.builderFor(s).hour("event_time").build(),
        s -> PartitionSpec.builderFor(s).month("event_time").year("birthday").build(),
        s -> PartitionSpec.builderFor(s).year("local_time").day("birthday").identity("active").build(),
        s -> PartitionSpec.builderFor(s).identity("entity_id").build(),
        s -> PartitionSpec.builderFor(s).identity("amount").identity("active").build(),
        s -> PartitionSpec.builderFor(s).identity("label").month("birthday").build(),
        s -> PartitionSpec.builderFor(s).alwaysNull("label").day("local_time").identity("birthday").build());
    for (Function<Schema, PartitionSpec> spec : specs) {
      FeatureTable[] t = pair(spec);
      Outcome ours = Outcome.of(t[0], i -> i.csv(file));
      Outcome java = Outcome.of(t[1], i -> i.csv(file));
      assertThat(ours.failure()).as(t[0].unwrap(Table.class).spec().toString()).isNull();
      assertThat(engine(t[0])).as(t[0].unwrap(Table.class).spec().toString()).contains("duckdb");
      assertThat(rows(t[0])).isEqualTo(rows(t[1]));
      assertThat(checkPartitions(t[0])).isEqualTo(600);
      assertThat(java.result().dataFiles()).isEqualTo(ours.result().dataFiles());
      Table iceberg = t[0].unwrap(Table.class);
      for (org.apache.iceberg.DataFile data : iceberg.currentSnapshot().addedDataFiles(iceberg.io())) {
        // the same layout as the Java path's files (orphan removal compares locations as text)
        assertThat(data.location().substring(iceberg.location().length())).doesNotContain("//")
            .startsWith("/data/");
      }
    }
    // identity partitions on timestamps and ints: one partition per row
    FeatureTable[] t = pair(s -> PartitionSpec.builderFor(s).identity("event_time").identity("clicks").build());
    Outcome ours = Outcome.of(t[0], i -> i.csv(small));
    Outcome.of(t[1], i -> i.csv(small));
    assertThat(ours.failure()).isNull();
    assertThat(engine(t[0])).contains("duckdb");
    assertThat(rows(t[0])).isEqualTo(rows(t[1]));
    assertThat(checkPartitions(t[0])).isEqualTo(40);
  }

  @Test
  void parquet_engineWritesTheJavaPathsRows() throws Exception {
    Path csv = write("for-parquet.csv", canonicalCsv(2000, 3));
    FeatureTable[] source = pair(s -> PartitionSpec.unpartitioned());
    Outcome.of(source[1], i -> i.csv(csv));
    // the source Parquet file: written by DuckDB from the Java path's table, with narrower types too
    Path parquet = dir.resolve("source.parquet");
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:"); Statement statement = connection.createStatement()) {
      statement.execute("SET TimeZone = 'UTC'");
      StringBuilder files = new StringBuilder();
      for (Path p : dataFiles(source[1])) {
        files.append(files.length() == 0 ? "" : ", ").append(DuckTypes.quote(p.toString()));
      }
      statement.execute("COPY (SELECT entity_id, event_time, feature_a, CAST(clicks % 100 AS SMALLINT) AS clicks, "
          + "CAST(amount AS DECIMAL(10,2)) AS amount, label, country, active, birthday, "
          + "CAST(local_time AS TIMESTAMPTZ) AS local_time, uid, \"at\" FROM read_parquet([" + files + "])) TO "
          + DuckTypes.quote(parquet.toString()) + " (FORMAT parquet)");
    }
    FeatureTable[] t = pair(dayAndCountry());
    Outcome ours = Outcome.of(t[0], i -> i.parquet(parquet));
    Outcome java = Outcome.of(t[1], i -> i.parquet(parquet));
    assertThat(ours.failure()).isNull();
    assertThat(java.failure()).isNull();
    assertThat(engine(t[0])).contains("duckdb");
    assertThat(rows(t[0])).isEqualTo(rows(t[1]));
    assertThat(checkPartitions(t[0])).isEqualTo(2000);
  }

  @Test
  void listener_hearsProgressAndTheEnd() throws IOException {
    Path file = write("progress.csv", canonicalCsv(20_000, 4));
    FeatureTable[] t = pair(dayAndCountry());
    List<IngestProgress> heard = new ArrayList<>();
    Outcome ours = Outcome.of(t[0], i -> i.csv(file).listener(heard::add, 1000));
    assertThat(ours.failure()).isNull();
    assertThat(engine(t[0])).contains("duckdb");
    assertThat(heard).isNotEmpty();
    assertThat(heard.get(heard.size() - 1).done()).isTrue();
    assertThat(heard.get(heard.size() - 1).rows()).isEqualTo(20_000);
  }

  /** Bad files: the same typed error on both paths, nothing committed, nothing left on disk. */
  @Test
  void badFiles_failAsOnTheJavaPath_tableUnchanged() throws IOException {
    String good = canonicalCsv(50, 5);
    String[] lines = good.split("\n", -1);
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("extra field", good + "1,2026-01-01T00:00:00Z,1,2,3,x,us,true,2020-01-01,2020-01-01T00:00:00,,10:00,extra\n");
    cases.put("trailing empty field", good + "1,2026-01-01T00:00:00Z,1,2,3,x,us,true,2020-01-01,2020-01-01T00:00:00,,10:00,\n");
    cases.put("missing field", good + "1,2026-01-01T00:00:00Z,1\n");
    cases.put("wrong type", good + "1,2026-01-01T00:00:00Z,abc,2,3,x,us,true,,,,\n");
    cases.put("required null", good + ",2026-01-01T00:00:00Z,1,2,3,x,us,true,,,,\n");
    cases.put("double out of range", good + "1,2026-01-01T00:00:00Z,1e400,2,3,x,us,true,,,,\n");
    cases.put("double underflow", good + "1,2026-01-01T00:00:00Z,1e-400,2,3,x,us,true,,,,\n");
    cases.put("int out of range", good + "1,2026-01-01T00:00:00Z,1,3000000000,3,x,us,true,,,,\n");
    cases.put("decimal rounding", good + "1,2026-01-01T00:00:00Z,1,2,3.005,x,us,true,,,,\n");
    cases.put("boolean yes", good + "1,2026-01-01T00:00:00Z,1,2,3,x,us,yes,,,,\n");
    cases.put("bad date", good + "1,2026-01-01T00:00:00Z,1,2,3,x,us,true,2023-02-30,,,\n");
    cases.put("leap second", good + "1,2026-01-01T23:59:60Z,1,2,3,x,us,true,,,,\n");
    cases.put("unknown column", HEADER + ",foo\n" + String.join(",\n", List.of(lines).subList(1, 3)) + ",\n");
    cases.put("unterminated quote", good + "1,2026-01-01T00:00:00Z,1,2,3,\"open,us,true,,,,\n");
    cases.put("quote after field", good + "1,2026-01-01T00:00:00Z,1,2,3,\"x\"y,us,true,,,,\n");
    cases.put("invalid utf-8", good + "1,2026-01-01T00:00:00Z,1,2,3,\u00ff,us,true,,,,\n");
    int n = 0;
    for (Map.Entry<String, String> c : cases.entrySet()) {
      Path file = dir.resolve("bad-" + n++ + ".csv");
      byte[] bytes = c.getValue().getBytes(StandardCharsets.UTF_8);
      if (c.getKey().equals("invalid utf-8")) {
        bytes = c.getValue().replace("\u00ff", "\u0001").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
          if (bytes[i] == 1) {
            bytes[i] = (byte) 0xff;
          }
        }
      }
      Files.write(file, bytes);
      FeatureTable[] t = pair(dayAndCountry());
      Outcome ours = Outcome.of(t[0], i -> i.csv(file));
      Outcome java = Outcome.of(t[1], i -> i.csv(file));
      assertThat(java.failure()).as(c.getKey()).isNotNull();
      assertThat(ours.failure()).as(c.getKey()).isEqualTo(java.failure());
      assertThat(t[0].unwrap(Table.class).currentSnapshot()).as(c.getKey()).isNull();
      assertThat(dataFiles(t[0])).as(c.getKey()).isEmpty();
    }
  }

  /**
   * A value only the Java path takes (an integer with a plus sign) in the last row: DuckDB stops
   * there, the Java path writes the file, and the result counts its rows only (not DuckDB's
   * progress estimate plus them).
   */
  @Test
  void declinedLate_javaPathWritesAndCountsItsOwnRows() throws IOException {
    Path file = write("late.csv", canonicalCsv(20_000, 8)
        + "1,2026-01-01T00:00:00Z,1.5,+5,3,x,us,true,,,,\n");
    FeatureTable[] t = pair(dayAndCountry());
    List<IngestProgress> heard = new ArrayList<>();
    Outcome ours = Outcome.of(t[0], i -> i.csv(file).listener(heard::add, 1000));
    Outcome java = Outcome.of(t[1], i -> i.csv(file));
    assertThat(ours.failure()).isNull();
    assertThat(engine(t[0])).isEmpty();
    assertThat(ours.result().rows()).isEqualTo(20_001).isEqualTo(java.result().rows());
    assertThat(heard.get(heard.size() - 1).rows()).isEqualTo(20_001);
    assertThat(rows(t[0])).isEqualTo(rows(t[1]));
    assertThat(dataFiles(t[0])).hasSize(ours.result().dataFiles());
  }

  @Test
  void javaEngineProperty_keepsTheJavaPath() throws IOException {
    Path file = write("java.csv", canonicalCsv(10, 6));
    FeatureTable[] t = pair(dayAndCountry());
    assertThat(Outcome.of(t[1], i -> i.csv(file)).failure()).isNull();
    assertThat(engine(t[1])).isEmpty();
  }

  static void sql(String statement) throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:"); Statement s = connection.createStatement()) {
      s.execute(statement);
    }
  }
}
