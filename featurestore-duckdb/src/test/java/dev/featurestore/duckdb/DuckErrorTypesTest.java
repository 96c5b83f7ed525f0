package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every failure a user can cause through the DuckDB adapter is a typed FeatureStoreException with a "Cannot ..." message. */
class DuckErrorTypesTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable events;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).build();
    events = TestTables.createEvents(store, false);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  @Test
  void badTableAliases_areInvalidArguments() {
    assertThatThrownBy(() -> sql.query("SELECT 1").table("a b", events))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot name table: not a plain SQL identifier: a b");
    assertThatThrownBy(() -> sql.query("SELECT 1").table("", events))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot name table: not a plain SQL identifier: ");
    assertThatThrownBy(() -> sql.query("SELECT 1").table("__x", events))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot name table: names starting with __ are reserved: __x");
    assertThatThrownBy(() -> sql.query("SELECT 1").table("ev", events).table("EV", events))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot name table: name already given: EV");
    assertThatThrownBy(() -> sql.query("SELECT 1").timeout(Duration.ZERO))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set timeout: must be positive: PT0S");
  }

  @Test
  void builderSettings_areInvalidArguments() {
    assertThatThrownBy(() -> DuckQueries.builder(store).threads(0))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set threads: must be at least 1: 0");
    assertThatThrownBy(() -> DuckQueries.builder(store).memoryLimit("lots"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set memory limit: expected a size such as 512MB or 2GB: lots");
    assertThatThrownBy(() -> DuckQueries.builder(store).cacheMaxBytes(-1))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set cache size: must not be negative: -1");
    assertThatThrownBy(() -> DuckQueries.builder(store).fetchThreads(0))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set fetch threads: must be at least 1: 0");
  }

  @Test
  void resultMisuse_isInvalidState() {
    try (RootAllocator allocator = new RootAllocator()) {
      SqlResult result = sql.query("SELECT entity_id FROM ev").table("ev", events).execute();
      assertThatThrownBy(() -> result.arrow(allocator, 0))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot read Arrow batches: batch rows must be at least 1: 0");
      result.iterator();
      assertThatThrownBy(result::iterator)
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot iterate query result: already iterated (a result is single-use)");
      assertThatThrownBy(() -> result.arrow(allocator))
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot read query result as Arrow: already read (a result is single-use)");
      result.close();
      assertThatThrownBy(result::resultSet)
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot read query result: result is closed");
    }
    try (SqlResult result = sql.query("SELECT entity_id FROM ev").table("ev", events).execute()) {
      var row = result.iterator().next();
      assertThatThrownBy(() -> row.get("nope"))
          .isExactlyInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot read column: no such column in the result: nope");
    }
    sql.close();
    assertThatThrownBy(() -> sql.query("SELECT 1"))
        .isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot run query: the DuckDB engine is closed");
  }

  @Test
  void trainingSetBuilder_isTyped() {
    assertThatThrownBy(() -> sql.trainingSet().build())
        .isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot build training set: no labels given");
    assertThatThrownBy(() -> sql.trainingSet().labels(events.query(), "entity_id", "event_time").build())
        .isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot build training set: no feature table given");
    assertThatThrownBy(() -> sql.trainingSet().labels(events.query(), " ", "event_time"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build training set: blank entity column");
    assertThatThrownBy(() -> sql.trainingSet()
        .features("a b", events.query(), "entity_id", "event_time", null, "feature_a"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add feature table: not a plain SQL identifier: a b");
    assertThatThrownBy(() -> sql.trainingSet()
        .features("ev", events.query(), "entity_id", "event_time", Duration.ZERO, "feature_a"))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add feature table: TTL must be positive: PT0S");
    assertThatThrownBy(() -> sql.trainingSet()
        .features("ev", events.query(), "entity_id", "event_time", null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot add feature table: no feature column given: ev");
  }
}
