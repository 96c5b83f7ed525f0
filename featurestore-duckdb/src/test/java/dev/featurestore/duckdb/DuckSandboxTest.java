package dev.featurestore.duckdb;

import dev.featurestore.core.query.TestTables;
import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.NotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** User SQL reads the tables it was given and nothing else. */
class DuckSandboxTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable events;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private SqlQuery query(String text) {
    return sql.query(text).table("ev", events);
  }

  @Test
  void readCsv_ofSystemFile_isRefused() {
    assertThatThrownBy(() -> query("SELECT * FROM read_csv('/etc/passwd')").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: table function not allowed: read_csv");
  }

  @Test
  void readParquet_ofWarehouseFile_isRefused() {
    String file = events.unwrap(org.apache.iceberg.Table.class).currentSnapshot()
        .addedDataFiles(events.unwrap(org.apache.iceberg.Table.class).io()).iterator().next().location();
    assertThatThrownBy(() -> query("SELECT * FROM read_parquet('" + file + "')").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: table function not allowed: read_parquet");
  }

  @Test
  void fileAsTable_isRefused() {
    assertThatThrownBy(() -> query("SELECT * FROM '/etc/passwd'").toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot run query: unknown table (give it to the query with table(name, version)): /etc/passwd");
  }

  @Test
  void scalarFileFunctions_areRefusedByTheDatabase() {
    assertThatThrownBy(() -> query("SELECT getenv('HOME') AS h").toList())
        .isInstanceOf(InvalidSqlException.class)
        .hasMessageStartingWith("Cannot run query: Catalog Error: Scalar Function with name getenv does not exist!");
  }

  @Test
  void copyTo_isRefused() {
    Path target = dir.resolve("evil.csv");
    assertThatThrownBy(() -> query("COPY (SELECT * FROM ev) TO '" + target + "'").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: only a single SELECT statement is allowed: COPY");
    assertThat(target).doesNotExist();
  }

  @Test
  void copyInto_theWorkDirectory_isRefusedToo() {
    Path target = dir.resolve("store/duckdb/exports/evil.csv");
    assertThatThrownBy(() -> query("COPY (SELECT 1) TO '" + target + "'").toList())
        .isInstanceOf(SqlRefusedException.class);
    assertThat(target).doesNotExist();
  }

  @Test
  void attach_install_load_set_pragma_areRefused() {
    for (String statement : List.of("ATTACH '" + dir.resolve("x.db") + "' AS x", "ATTACH ':memory:' AS m",
        "INSTALL httpfs", "LOAD httpfs", "SET threads = 8", "SET enable_external_access = true",
        "RESET lock_configuration", "PRAGMA threads = 8", "CREATE TABLE t AS SELECT 1", "DETACH memory",
        "EXPORT DATABASE '" + dir.resolve("exp") + "'", "CALL pragma_version()")) {
      assertThatThrownBy(() -> query(statement).toList()).as(statement)
          .isInstanceOf(SqlRefusedException.class)
          .hasMessageStartingWith("Cannot run query: only a single SELECT statement is allowed: ");
    }
    assertThat(dir.resolve("x.db")).doesNotExist();
  }

  @Test
  void severalStatements_areRefused() {
    assertThatThrownBy(() -> query("SELECT 1; SELECT 2").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: only a single SELECT statement is allowed: 2 statements");
  }

  @Test
  void qualifiedNames_andOtherTables_areRefused() {
    assertThatThrownBy(() -> query("SELECT * FROM memory.main.ev").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: qualified table names are not allowed: memory.main.ev");
    assertThatThrownBy(() -> query("SELECT * FROM other").toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot run query: unknown table (give it to the query with table(name, version)): other");
    assertThatThrownBy(() -> query("SELECT * FROM __pos_0").toList())
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void checkedText_isCheckedAgain_forOtherRelations() {
    String text = "SELECT count(*) AS n FROM ev";
    assertThat(query(text).toList()).containsExactly(Map.of("n", 1L));
    // the engine keeps the verdict of a text it checked; it holds for the same relation names only
    assertThatThrownBy(() -> sql.query(text).table("other", events).toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot run query: unknown table (give it to the query with table(name, version)): ev");
    assertThat(sql.query(text).table("EV", events).toList()).containsExactly(Map.of("n", 1L));
    assertThatThrownBy(() -> sql.query("SELECT * FROM ev; SELECT 2").table("ev", events).toList())
        .isInstanceOf(SqlRefusedException.class);
    assertThatThrownBy(() -> sql.query("SELECT * FROM ev; SELECT 2").table("ev", events).toList())
        .isInstanceOf(SqlRefusedException.class);
  }

  @Test
  void subqueriesCtesAndGenerators_areAllowed() {
    List<Map<String, Object>> rows = query("""
        WITH x AS (SELECT entity_id FROM ev), r AS (SELECT range AS i FROM range(3))
        SELECT (SELECT count(*) FROM x) AS n, (SELECT sum(i) FROM r) AS s,
               (SELECT max(u) FROM (SELECT unnest([1, 2]) AS u)) AS m""").toList();
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0)).containsEntry("n", 1L).containsEntry("m", 2);
    assertThat(((Number) rows.get(0).get("s")).longValue()).isEqualTo(3);
  }

  @Test
  void tableFunction_hiddenInSubquery_isRefused() {
    assertThatThrownBy(() -> query("SELECT * FROM ev WHERE entity_id IN (SELECT 1 FROM read_text('/etc/hostname'))").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: table function not allowed: read_text");
  }

  @Test
  void badSql_isInvalidSql() {
    assertThatThrownBy(() -> query("SELEC 1").toList())
        .isInstanceOf(InvalidSqlException.class)
        .hasMessageStartingWith("Cannot run query: invalid SQL: syntax error at or near \"SELEC\"");
    assertThatThrownBy(() -> query("SELECT nope FROM ev").toList())
        .isInstanceOf(InvalidSqlException.class)
        .hasMessageStartingWith("Cannot run query: Binder Error: Referenced column \"nope\" not found");
  }

  @Test
  void tableNames_areChecked() {
    assertThatThrownBy(() -> sql.query("SELECT 1").table("a b", events))
        .isExactlyInstanceOf(dev.featurestore.InvalidArgumentException.class)
        .hasMessage("Cannot name table: not a plain SQL identifier: a b");
    assertThatThrownBy(() -> sql.query("SELECT 1").table("ev", events).table("EV", events))
        .isExactlyInstanceOf(dev.featurestore.InvalidArgumentException.class)
        .hasMessage("Cannot name table: name already given: EV");
  }

  @Test
  void timeout_cancelsLongQuery() {
    long start = System.nanoTime();
    assertThatThrownBy(() -> query("SELECT count(*) FROM range(100000000000) a").timeout(Duration.ofMillis(300)).toList())
        .isInstanceOfSatisfying(QueryCancelledException.class, e -> assertThat(e.timedOut()).isTrue())
        .hasMessage("Cannot run query: timed out after PT0.3S");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    // the engine still works
    assertThat(query("SELECT count(*) AS n FROM ev").toList()).containsExactly(Map.of("n", 1L));
  }

  @Test
  void closedEngine_refusesQueries() {
    sql.close();
    sql.close();
    assertThatThrownBy(() -> query("SELECT 1").toList())
        .isExactlyInstanceOf(dev.featurestore.InvalidStateException.class)
        .hasMessage("Cannot run query: the DuckDB engine is closed");
  }

  @Test
  void workDirectory_holdsNoStrayFiles() throws Exception {
    query("SELECT * FROM ev").toList();
    try (var files = Files.list(dir.resolve("store/duckdb/exports"))) {
      assertThat(files).isEmpty();
    }
  }
}
