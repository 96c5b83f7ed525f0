package dev.featurestore.duckdb;

import static dev.featurestore.core.EntryPointWalk.bad;
import static dev.featurestore.core.EntryPointWalk.nul;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.ValidationException;
import dev.featurestore.core.EntryPointWalk;
import dev.featurestore.core.EntryPointWalk.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DuckDB adapter's entry points with bad arguments, as core's {@code PublicEntryPointsTest}
 * walks its own (the same row kinds; core's test-jar is not on this module's reactor test path):
 * table aliases, the engine builder, queries, exports and training sets fail typed with a
 * {@code Cannot ...} message on one line.
 */
class DuckEntryPointsTest {
  @TempDir static Path dir;
  static FeatureStore store;
  static FeatureTable events;
  static SqlEngine sql;

  @BeforeAll
  static void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, "x", Types.DoubleType.get()));
    events = store.createTable(TableDefinition.builder("walk.ev", schema).build());
    events.append(List.of(Map.of("id", 1L, "ts", Instant.parse("2026-01-01T00:00:00Z"), "x", 0.5)));
    sql = DuckQueries.builder(store).threads(1).build();
  }

  @AfterAll
  static void close() {
    sql.close();
    store.close();
  }

  static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    for (String alias : List.of("", " ", "a b", "\"ev\"", "ev\"; DROP TABLE x; --", "a'b", "1ev", "ev-1", "a\u0000b",
        "\u00e9v", "__ev")) {
      rows.add(bad("alias [" + alias + "]", InvalidArgumentException.class, () -> sql.query("SELECT 1").table(alias, events)));
      rows.add(bad("training set feature name [" + alias + "]", InvalidArgumentException.class,
          () -> sql.trainingSet().features(alias, events.query(), "id", "ts", null, "x")));
    }
    rows.add(bad("alias twice", InvalidArgumentException.class, () -> sql.query("SELECT 1").table("ev", events).table("EV", events)));
    rows.add(bad("timeout zero", InvalidArgumentException.class, () -> sql.query("SELECT 1").timeout(Duration.ZERO)));
    rows.add(bad("timeout negative", InvalidArgumentException.class, () -> sql.query("SELECT 1").timeout(Duration.ofSeconds(-1))));
    rows.add(bad("engine threads 0", InvalidArgumentException.class, () -> DuckQueries.builder(store).threads(0)));
    rows.add(bad("engine memory limit", InvalidArgumentException.class, () -> DuckQueries.builder(store).memoryLimit("lots")));
    rows.add(bad("engine cache -1", InvalidArgumentException.class, () -> DuckQueries.builder(store).cacheMaxBytes(-1)));
    rows.add(bad("engine fetch threads 0", InvalidArgumentException.class, () -> DuckQueries.builder(store).fetchThreads(0)));
    rows.add(bad("engine default timeout 0", InvalidArgumentException.class,
        () -> DuckQueries.builder(store).defaultTimeout(Duration.ZERO)));
    rows.add(bad("engine max SQL length 0", InvalidArgumentException.class, () -> DuckQueries.builder(store).maxSqlLength(0)));
    rows.add(bad("bad SQL", InvalidSqlException.class, () -> sql.query("SELEC 1").execute().close()));
    rows.add(bad("unknown relation", NotFoundException.class, () -> sql.query("SELECT * FROM nope").execute().close()));
    rows.add(bad("missing snapshot", SnapshotNotFoundException.class,
        () -> sql.query("SELECT * FROM ev").table("ev", events.query().asOfSnapshot(12345)).execute().close()));
    rows.add(bad("unknown ref", () -> sql.query("SELECT * FROM ev").table("ev", events.query().atRef("nope")).execute().close()));
    rows.add(bad("unknown column", () -> sql.query("SELECT * FROM ev").table("ev", events.query().select("nope")).execute().close()));
    rows.add(bad("filter on a column of the wrong type", () -> sql.query("SELECT * FROM ev")
        .table("ev", events.query().filter(Expressions.equal("id", "abc"))).execute().close()));
    rows.add(bad("export to existing file", AlreadyExistsException.class, () -> sql.query("SELECT 1 AS a").exportParquet(EntryPointWalk.existingFile(dir))));
    rows.add(bad("export to bucket bad name", InvalidArgumentException.class, () -> sql.query("SELECT 1 AS a").exportToBucket("../x")));
    rows.add(bad("export to bucket folder", InvalidArgumentException.class, () -> sql.query("SELECT 1 AS a").exportToBucket("dir/")));
    rows.add(bad("export to bucket on local store", ValidationException.class,
        () -> sql.query("SELECT 1 AS a").exportToBucket("slice")));
    rows.add(bad("training set without labels", InvalidStateException.class,
        () -> sql.trainingSet().features("f", events.query(), "id", "ts", null, "x").build()));
    rows.add(bad("training set without features", InvalidStateException.class,
        () -> sql.trainingSet().labels(events.query(), "id", "ts").build()));
    rows.add(bad("training set ttl zero", InvalidArgumentException.class,
        () -> sql.trainingSet().features("f", events.query(), "id", "ts", Duration.ZERO, "x")));
    rows.add(bad("training set no columns", InvalidArgumentException.class,
        () -> sql.trainingSet().features("f", events.query(), "id", "ts", null)));
    rows.add(bad("training set blank entity", InvalidArgumentException.class, () -> sql.trainingSet().labels(events.query(), " ", "ts")));
    rows.add(nul("engine null store", () -> DuckQueries.builder(null)));
    rows.add(nul("engine open null store", () -> DuckQueries.open(null)));
    rows.add(nul("engine null memory limit", () -> DuckQueries.builder(store).memoryLimit(null)));
    rows.add(nul("engine null work directory", () -> DuckQueries.builder(store).workDirectory(null)));
    rows.add(nul("engine null default timeout", () -> DuckQueries.builder(store).defaultTimeout(null)));
    rows.add(nul("query null sql", () -> sql.query(null)));
    rows.add(nul("alias null", () -> sql.query("SELECT 1").table(null, events.query())));
    rows.add(nul("alias null query", () -> sql.query("SELECT 1").table("ev", (TimeTravelQuery) null)));
    rows.add(nul("alias null table", () -> sql.query("SELECT 1").table("ev", (FeatureTable) null)));
    rows.add(nul("timeout null", () -> sql.query("SELECT 1").timeout(null)));
    rows.add(nul("export to null file", () -> sql.query("SELECT 1 AS a").exportParquet(null)));
    rows.add(nul("export to null bucket name", () -> sql.query("SELECT 1 AS a").exportToBucket(null)));
    rows.add(nul("table version of null", () -> TableVersion.of(null)));
    rows.add(nul("training set null labels", () -> sql.trainingSet().labels((TimeTravelQuery) null, "id", "ts")));
    rows.add(nul("training set null label version", () -> sql.trainingSet().labels((TableVersion) null, "id", "ts")));
    rows.add(nul("training set null entity", () -> sql.trainingSet().labels(events.query(), null, "ts")));
    rows.add(nul("training set null feature name", () -> sql.trainingSet().features(null, events.query(), "id", "ts", null, "x")));
    rows.add(nul("training set null feature version",
        () -> sql.trainingSet().features("f", (TimeTravelQuery) null, "id", "ts", null, "x")));
    rows.add(nul("training set null feature column", () -> sql.trainingSet().features("f", events.query(), "id", "ts", null,
        (String) null)));
    rows.add(bad("query after close", InvalidStateException.class, () -> {
      SqlEngine closed = DuckQueries.builder(store).threads(1).workDirectory(dir.resolve("closed")).build();
      closed.close();
      closed.query("SELECT 1").execute().close();
    }));
    return rows;
  }

  @TestFactory
  Stream<DynamicTest> everyEntryPoint_failsTypedWithACannotMessage() {
    return EntryPointWalk.tests(rows());
  }

  @Test
  void aliasWithAControlCharacter_isShownEscaped() {
    assertThatThrownBy(() -> sql.query("SELECT 1").table("a\u0000b", events))
        .hasMessage("Cannot name table: not a plain SQL identifier: a\\u0000b");
  }
}
