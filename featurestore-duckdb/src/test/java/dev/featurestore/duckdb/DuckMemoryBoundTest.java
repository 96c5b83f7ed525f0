package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL memory limit is a bound: SQL text is capped before DuckDB parses it, string functions
 * whose result would exceed the limit are refused, and running out of memory says so. Inputs are
 * sized so that the unfixed engine grows by a few hundred MB at most (the test JVM has -Xmx2g).
 */
class DuckMemoryBoundTest {
  @TempDir
  Path dir;

  FeatureStore store;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Resident memory of this process in MB (coarse: only growth of hundreds of MB matters). */
  static long residentMb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
      }
    }
    throw new AssertionError("no VmRSS in /proc/self/status");
  }

  @Test
  void sqlText_overTheDefaultCap_isRefusedBeforeParsing() {
    String sql = "SELECT 1 AS one /*" + "x".repeat(1_000_000) + "*/";
    try (SqlEngine sql1 = DuckQueries.builder(store).threads(1).build()) {
      assertThatThrownBy(() -> sql1.query(sql).toList())
          .isInstanceOf(SqlRefusedException.class)
          .hasMessage("Cannot run query: SQL text is longer than the limit of 1000000 characters (maxSqlLength): "
              + sql.length());
    }
  }

  @Test
  void sqlText_overAConfiguredCap_isRefused_andUnderIt_runs() {
    try (SqlEngine sql = DuckQueries.builder(store).threads(1).maxSqlLength(100).build()) {
      String longer = "SELECT 1 AS one WHERE 1 IN (" + "1, ".repeat(40) + "1)";
      assertThatThrownBy(() -> sql.query(longer).toList())
          .isInstanceOf(SqlRefusedException.class)
          .hasMessage("Cannot run query: SQL text is longer than the limit of 100 characters (maxSqlLength): "
              + longer.length());
      assertThat(sql.query("SELECT 1 AS one").toList()).hasSize(1);
    }
  }

  @Test
  void maxSqlLength_mustBePositive() {
    assertThatThrownBy(() -> DuckQueries.builder(store).maxSqlLength(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set max SQL length: must be at least 1: 0");
  }

  @Test
  void repeat_overTheMemoryLimit_isRefused_withoutAllocating() throws Exception {
    try (SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("64MB").build()) {
      long before = residentMb();
      // 300 MB of 'x': unguarded, DuckDB allocates it outside its buffer manager (memory_limit does not apply)
      assertThatThrownBy(() -> sql.query("SELECT repeat('x', 300000000) AS s").toList())
          .isInstanceOf(SqlRefusedException.class)
          .hasMessage("Cannot run query: the result of repeat would exceed the memory limit of 64MB: 300000000 bytes");
      assertThat(residentMb() - before).isLessThan(200);
      assertThatThrownBy(() -> sql.query("SELECT length(repeat(repeat('ab', 10000), 10000)) AS n").toList())
          .isInstanceOf(SqlRefusedException.class)
          .hasMessage("Cannot run query: the result of repeat would exceed the memory limit of 64MB: 200000000 bytes");
      assertThatThrownBy(() -> sql.query("SELECT lpad('a', 100000000, 'b') AS s").toList())
          .isInstanceOf(SqlRefusedException.class)
          .hasMessage("Cannot run query: the result of lpad would exceed the memory limit of 64MB: 100000000 bytes");
      assertThat(sql.query("SELECT length(repeat('x', 1000)) AS n").toList()).containsExactly(java.util.Map.of("n", 1000L));
    }
  }

  @Test
  void outOfMemory_isNamedAsSuch() {
    try (SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("32MB").build()) {
      assertThatThrownBy(() -> sql.query("SELECT length(string_agg(i::VARCHAR, ',')) AS n FROM range(30000000) t(i)")
          .toList())
          .isInstanceOf(QueryOutOfMemoryException.class)
          .hasMessageStartingWith("Cannot run query: out of memory: limit 32MB");
      // the engine stays usable
      assertThat(sql.query("SELECT 1 AS one").toList()).hasSize(1);
    }
  }
}
