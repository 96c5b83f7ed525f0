package dev.featurestore.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DuckDB benchmarks at small sizes: each runs both sides, checks they computed the same
 * answer (the benchmark throws otherwise), and prints a RESULT line that parses.
 */
class DuckBenchmarksTest {
  private static final Pattern RESULT = Pattern.compile(
      "RESULT (\\S+) ours=([0-9.]+) baseline=([0-9.]+) unit=(\\S+) ratio=([0-9.]+)");
  private static final List<String> SETTINGS = List.of("rows", "labels", "features", "warmups", "iterations",
      "bench.dir", "only");

  @TempDir
  Path dir;

  @AfterEach
  void clearSettings() {
    SETTINGS.forEach(System::clearProperty);
  }

  @Test
  void sqlLocal_agreesWithReadParquet_andPrintsResult() throws Exception {
    String out = run(Map.of("rows", "30000", "warmups", "0", "iterations", "1"), SqlBenchmarks::local);

    assertThat(out).contains("sql-local: same answer on both sides: groups=");
    assertResult(out, "sql-local", "ms");
  }

  @Test
  void sqlS3Warm_agreesWithReadParquetOverTheSameFiles_andPrintsResult() throws Exception {
    String out = run(Map.of("rows", "30000", "warmups", "1", "iterations", "1"), SqlBenchmarks::s3Warm);

    assertThat(out).contains("sql-s3-warm: same answer on both sides: groups=");
    assertThat(out).containsPattern("sql-s3-warm: cache CacheStats\\[files=\\d+, bytes=\\d+, maxBytes=\\d+, hits=[1-9]");
    assertResult(out, "sql-s3-warm", "ms");
  }

  @Test
  void sqlVsIcebergReader_agreesWithIcebergGenerics_andPrintsResult() throws Exception {
    String out = run(Map.of("rows", "30000", "warmups", "0", "iterations", "1"), SqlBenchmarks::vsIcebergReader);

    assertThat(out).contains("sql-vs-iceberg-reader: same answer on both sides: groups=");
    assertThat(out).containsPattern("the adapter is [0-9.]+x faster");
    assertThat(out).containsPattern("CPU time \\(process, measured rounds, median\\): adapter [0-9]+ ms");
    assertResult(out, "sql-vs-iceberg-reader", "ms");
  }

  @Test
  void trainingSet_agreesWithHandWrittenAsofJoin_andPrintsResult() throws Exception {
    String out = run(Map.of("labels", "3000", "features", "20000", "warmups", "0", "iterations", "2"),
        TrainingSetBenchmark::run);

    assertThat(out).containsPattern("training-set: same rows on both sides in every round: 3000 rows; "
        + "labels with a feature value within the TTL: [1-9]\\d*");
    assertResult(out, "training-set", "ms");
  }

  @Test
  void ingestCsv_writtenByTheEngine_andPrintsResult() throws Exception {
    String out = run(Map.of("rows", "20000", "warmups", "0", "iterations", "1"), FileIngestBenchmarks::csv);
    assertThat(out).contains("ingest-csv ours:     engine=duckdb");
    assertResult(out, "ingest-csv", "ms");
  }

  @Test
  void ingestParquet_writtenByTheEngine_andPrintsResult() throws Exception {
    String out = run(Map.of("rows", "20000", "warmups", "0", "iterations", "1"), FileIngestBenchmarks::parquet);
    assertThat(out).contains("ingest-parquet ours:     engine=duckdb");
    assertResult(out, "ingest-parquet", "ms");
  }

  @Test
  void groupAnswer_differentAnswers_fail() {
    GroupAnswer one = new GroupAnswer();
    one.add(1, 10, 2.5, 3.0);
    one.add(2, 5, null, 1.0);
    GroupAnswer same = new GroupAnswer();
    same.add(2, 5, null, 1.0);
    same.add(1, 10, 2.5, 3.0);
    GroupAnswer otherMax = new GroupAnswer();
    otherMax.add(1, 10, 2.5, 3.5);
    otherMax.add(2, 5, null, 1.0);
    GroupAnswer otherSum = new GroupAnswer();
    otherSum.add(1, 10, 2.6, 3.0);
    otherSum.add(2, 5, null, 1.0);

    one.checkSame("t", same);
    assertThatThrownBy(() -> one.checkSame("t", otherMax)).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot compare t: ours and the baseline answered differently: ");
    assertThatThrownBy(() -> one.checkSame("t", otherSum)).isInstanceOf(IllegalStateException.class);
  }

  private interface Benchmark {
    void run() throws Exception;
  }

  /** Runs a benchmark with these settings and returns what it printed on stdout. */
  private String run(Map<String, String> settings, Benchmark benchmark) throws Exception {
    settings.forEach(System::setProperty);
    System.setProperty("bench.dir", dir.toString());
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      benchmark.run();
    } finally {
      System.setOut(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    original.print(out);
    return out;
  }

  private static void assertResult(String out, String name, String unit) {
    List<String> lines = out.lines().toList();
    Matcher m = RESULT.matcher(lines.get(lines.size() - 1));
    assertThat(m.matches()).as("last line: %s", lines.get(lines.size() - 1)).isTrue();
    assertThat(m.group(1)).isEqualTo(name);
    assertThat(m.group(4)).isEqualTo(unit);
    double ours = Double.parseDouble(m.group(2));
    double baseline = Double.parseDouble(m.group(3));
    assertThat(ours).isPositive();
    assertThat(baseline).isPositive();
    assertThat(Double.parseDouble(m.group(5))).isCloseTo(ours / baseline, org.assertj.core.data.Offset.offset(0.01 * ours / baseline + 0.001));
  }
}
