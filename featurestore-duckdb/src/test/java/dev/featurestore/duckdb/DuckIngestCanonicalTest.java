package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckIngestSupport.Outcome;
import static dev.featurestore.duckdb.DuckIngestSupport.dataFiles;
import static dev.featurestore.duckdb.DuckIngestSupport.engine;
import static dev.featurestore.duckdb.DuckIngestSupport.rows;
import static dev.featurestore.duckdb.DuckIngestSupport.table;
import static dev.featurestore.duckdb.DuckIngestTest.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.base.FileIngestEngine;
import dev.featurestore.core.ingest.CanonicalTextCases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The canonical text core checks beside the engine (which then reads those columns typed): a file
 * of plain rows plus one row with an edge value in one column, ingested on both paths. A canonical
 * value is written by the engine and reads back as on the Java path; any other value sends the file
 * to the Java path (the same rows, or the same typed error with the table unchanged).
 */
class DuckIngestCanonicalTest {
  @TempDir Path dir;

  /** The row the edge value goes into (DuckIngestTest's columns). */
  static final String[] ROW = {"1", "2026-01-01T00:00:00Z", "1.5", "2", "3", "x", "us", "true", "", "", "", ""};
  static final int ENTITY_ID = 0;
  static final int EVENT_TIME = 1;
  static final int FEATURE_A = 2;
  static final int CLICKS = 3;
  static final int LOCAL_TIME = 9;

  record Case(int column, String value, boolean canonical) {}

  @Test
  void edgeValues_engineWritesTheCanonicalOnes_theJavaPathTheRest_sameOutcome() throws IOException {
    List<Case> cases = new ArrayList<>();
    add(cases, ENTITY_ID, CanonicalTextCases.LONGS, CanonicalTextCases.NOT_LONGS);
    add(cases, CLICKS, CanonicalTextCases.INTS, CanonicalTextCases.NOT_INTS);
    add(cases, FEATURE_A, CanonicalTextCases.DOUBLES, CanonicalTextCases.NOT_DOUBLES);
    add(cases, EVENT_TIME, CanonicalTextCases.TIMESTAMPS, CanonicalTextCases.NOT_TIMESTAMPS);
    add(cases, LOCAL_TIME, CanonicalTextCases.TIMESTAMPS, CanonicalTextCases.NOT_TIMESTAMPS);
    // empty and quoted fields: null where optional, refused where required, quotes around canonical text
    cases.add(new Case(FEATURE_A, "", true));
    cases.add(new Case(FEATURE_A, "\"\"", true));
    cases.add(new Case(CLICKS, "\"-12\"", true));
    cases.add(new Case(EVENT_TIME, "\"2026-01-02 03:04:05.5+01:00\"", true));
    cases.add(new Case(ENTITY_ID, "", false));
    cases.add(new Case(ENTITY_ID, "\"\"", false));
    cases.add(new Case(EVENT_TIME, "", false));
    cases.add(new Case(CLICKS, "\" 12\"", false));

    String plain = DuckIngestTest.canonicalCsv(30, 11);
    int engineWrote = 0;
    int failed = 0;
    int n = 0;
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      for (Case c : cases) {
        String[] row = ROW.clone();
        row[c.column()] = c.value();
        Path file = dir.resolve("canonical-" + n + ".csv");
        Files.writeString(file, plain + String.join(",", row) + "\n", StandardCharsets.UTF_8);
        FeatureTable[] t = {table(store, "c" + n, SCHEMA, DuckIngestTest.dayAndCountry(), false),
            table(store, "c" + n + "_java", SCHEMA, DuckIngestTest.dayAndCountry(), true)};
        n++;
        Outcome ours = Outcome.of(t[0], i -> i.csv(file));
        Outcome java = Outcome.of(t[1], i -> i.csv(file));
        String context = DuckIngestTest.HEADER.split(",")[c.column()] + " = [" + c.value() + "]";
        assertThat(ours.failure()).as(context).isEqualTo(java.failure());
        if (c.canonical()) {
          // canonical text is always a value the Java path reads, and the engine writes it
          assertThat(java.failure()).as(context).isNull();
          assertThat(engine(t[0])).as(context).contains("duckdb");
          engineWrote++;
        } else {
          assertThat(engine(t[0])).as(context).isEmpty();
        }
        if (java.failure() == null) {
          assertThat(ours.result().rows()).as(context).isEqualTo(31);
          assertThat(rows(t[0])).as(context).isEqualTo(rows(t[1]));
        } else {
          failed++;
          assertThat(t[0].unwrap(Table.class).currentSnapshot()).as(context).isNull();
          assertThat(dataFiles(t[0])).as(context).isEmpty();
        }
      }
    }
    assertThat(engineWrote).isGreaterThan(50);
    assertThat(failed).isGreaterThan(20);
  }

  /**
   * The engine alone, given columns as canonical that are not (core's check bypassed): DuckDB's
   * typed reader fails on the value, and the engine declines (the ingest would run the Java path)
   * rather than throwing anything else; the typed columns are in the statement.
   */
  @Test
  void typedReadError_declines() throws Exception {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "n", Types.LongType.get()),
        Types.NestedField.optional(2, "t", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "d", Types.DoubleType.get()));
    String good = "n,t,d\n1,2026-01-01T10:00:00+02:00,1.5\n";
    int n = 0;
    for (String bad : List.of("x,,", ",2026-02-30,", ",,1.5.5")) {
      Path csv = dir.resolve("typed-" + n + ".csv");
      Files.writeString(csv, good + bad + "\n", StandardCharsets.UTF_8);
      FileIngestEngine.Request request = request(schema, csv, Files.createDirectories(dir.resolve("out-" + n++)));
      assertThat(new DuckIngestEngine.IngestSql(request, java.util.Map.of()).copy())
          .contains("'n': 'BIGINT'", "'t': 'TIMESTAMPTZ'", "'d': 'DOUBLE'");
      try (FileIngestEngine.Job job = new DuckIngestEngine().prepare(request)) {
        assertThatThrownBy(() -> job.run(fraction -> { })).as(bad).isInstanceOf(FileIngestEngine.Declined.class);
      }
    }
    Path csv = dir.resolve("typed-good.csv");
    Files.writeString(csv, good, StandardCharsets.UTF_8);
    try (FileIngestEngine.Job job = new DuckIngestEngine().prepare(request(schema, csv,
        Files.createDirectories(dir.resolve("out-good"))))) {
      assertThat(job.run(fraction -> { })).hasSize(1);
    }
  }

  /**
   * The engine checks no int, long, double or timestamp text itself: a CSV request with such an
   * input column outside the canonical columns is declined (the ingest would run the Java path);
   * columns of the other types keep their checks in the statement, and a column the file does not
   * have needs none.
   */
  @Test
  void intLongDoubleOrTimestampColumnOutsideTheCanonicalColumns_declines() throws Exception {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "n", Types.LongType.get()),
        Types.NestedField.optional(2, "i", Types.IntegerType.get()),
        Types.NestedField.optional(3, "d", Types.DoubleType.get()),
        Types.NestedField.optional(4, "t", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(5, "z", Types.TimestampType.withZone()),
        Types.NestedField.optional(6, "day", Types.DateType.get()),
        Types.NestedField.optional(7, "at", Types.TimeType.get()),
        Types.NestedField.optional(8, "amount", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
        Types.NestedField.optional(10, "s", Types.StringType.get()),
        Types.NestedField.optional(11, "missing", Types.LongType.get()));
    List<String> input = List.of("n", "i", "d", "t", "z", "day", "at", "amount", "flag", "s");
    Path csv = dir.resolve("other-types.csv");
    Files.writeString(csv, String.join(",", input) + "\n"
        + "1,2,1.5,2026-01-01T10:00:00+02:00,2026-01-01T00:00:00Z,2026-01-02,10:11:12,1.25,true,x\n",
        StandardCharsets.UTF_8);
    List<String> typed = List.of("n", "i", "d", "t", "z");
    int n = 0;
    for (String left : typed) {
      Set<String> canonical = new java.util.HashSet<>(typed);
      canonical.remove(left);
      FileIngestEngine.Request request = request(schema, csv, Files.createDirectories(dir.resolve("left-" + n++)),
          input, canonical);
      assertThatThrownBy(() -> new DuckIngestEngine().prepare(request))
          .isInstanceOf(FileIngestEngine.Declined.class)
          .hasMessage("CSV column " + left + " of type " + schema.findType(left) + " is not among the canonical columns");
    }
    try (FileIngestEngine.Job job = new DuckIngestEngine().prepare(request(schema, csv,
        Files.createDirectories(dir.resolve("all")), input, Set.copyOf(typed)))) {
      List<FileIngestEngine.WrittenFile> files = job.run(fraction -> { });
      assertThat(files).hasSize(1);
      assertThat(files.get(0).rows()).isEqualTo(1);
    }
  }

  private static FileIngestEngine.Request request(Schema schema, Path csv, Path out) {
    return request(schema, csv, out, List.of("n", "t", "d"), Set.of("n", "t", "d"));
  }

  private static FileIngestEngine.Request request(Schema schema, Path csv, Path out, List<String> input,
      Set<String> canonical) {
    return new FileIngestEngine.Request(FileIngestEngine.Format.CSV, csv, input, schema,
        PartitionSpec.unpartitioned(), out, "zstd", OptionalInt.empty(), 512L << 20, canonical);
  }

  private static void add(List<Case> cases, int column, List<String> canonical, List<String> not) {
    for (String value : canonical) {
      cases.add(new Case(column, value, true));
    }
    for (String value : not) {
      if (!value.isEmpty() && !value.contains(",")) {
        cases.add(new Case(column, value, false));
      }
    }
  }
}
