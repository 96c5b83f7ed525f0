package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckIngestSupport.Outcome;
import static dev.featurestore.duckdb.DuckIngestSupport.dataFiles;
import static dev.featurestore.duckdb.DuckIngestSupport.engine;
import static dev.featurestore.duckdb.DuckIngestSupport.rows;
import static dev.featurestore.duckdb.DuckIngestSupport.table;
import static dev.featurestore.duckdb.DuckIngestTest.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.ingest.CanonicalTextCases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
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
