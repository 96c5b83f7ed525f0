package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.MetadataTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.TableNotFoundException;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metadata tables by name in SQL ("ns.table$files"), with the API's rows, joinable with data, and names checked. */
class DuckMetadataTablesTest {
  @TempDir Path dir;
  FeatureStore store;
  SqlEngine sql;
  FeatureTable events;

  @BeforeEach
  void open() {
    store = FeatureStore.builder().root(dir.resolve("store")).actor("sql-test").build();
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    events = TestTables.createEvents(store, true);
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0),
        event(events, 2, "2026-01-02T10:00:00Z", 3.0, 4.0)));
    events.ingest().synthetic(100, 3).commit();
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  @Test
  void filesTable_hasTheApisRows() {
    Map<String, Long> api = events.metadata(MetadataTable.FILES).toList().stream()
        .collect(Collectors.toMap(r -> (String) r.get("file_path"), r -> (Long) r.get("record_count")));
    List<Map<String, Object>> rows = sql.query(
        "SELECT file_path, record_count, file_size_in_bytes, readable_metrics.entity_id.lower_bound AS low,"
            + " partition.event_time_day AS day FROM \"features.feature_events$files\"").toList();
    assertThat(rows).hasSize(api.size());
    assertThat(rows.stream().collect(Collectors.toMap(r -> (String) r.get("file_path"), r -> (Long) r.get("record_count"))))
        .isEqualTo(api);
    assertThat(rows).allSatisfy(r -> assertThat(r.get("low")).isInstanceOf(Long.class));
  }

  @Test
  void metadataTables_joinWithData() {
    // rows per snapshot from the data, next to the snapshot's operation from $snapshots
    List<Map<String, Object>> rows = sql.query("SELECT s.operation, s.summary['added-records'] AS added, count(*) AS n"
            + " FROM \"features.feature_events$snapshots\" s, ev WHERE s.snapshot_id = (SELECT max_by(snapshot_id, committed_at)"
            + " FROM \"features.feature_events$snapshots\") GROUP BY 1, 2")
        .table("ev", events).toList();
    assertThat(rows).singleElement().satisfies(r -> {
      assertThat(r.get("operation")).isEqualTo("append");
      assertThat(r.get("added")).isEqualTo("100");
      assertThat(r.get("n")).isEqualTo(102L);
    });
  }

  @Test
  void operationsLog_perTableAndStoreWide_withTypedTimes() {
    List<Map<String, Object>> perTable = sql.query(
        "SELECT operation, actor, recorded_at FROM \"features.feature_events$operations\" ORDER BY recorded_at").toList();
    assertThat(perTable).extracting(r -> r.get("operation")).containsExactly("create_table", "ingest");
    assertThat(perTable).extracting(r -> r.get("actor")).containsOnly("sql-test");
    assertThat(perTable.get(0).get("recorded_at")).isInstanceOf(OffsetDateTime.class);
    assertThat(sql.query("SELECT count(*) AS n FROM \"$operations\"").toList())
        .singleElement().satisfies(r -> assertThat(r.get("n")).isEqualTo(2L));
  }

  @Test
  void schemasAndPartitions_areReadable() {
    assertThat(sql.query("SELECT name FROM \"features.feature_events$schemas\" ORDER BY field_id").toList())
        .extracting(r -> r.get("name")).containsExactly("entity_id", "event_time", "feature_a", "feature_b");
    assertThat(sql.query("SELECT sum(record_count) AS n FROM \"features.feature_events$partitions\"").toList())
        .singleElement().satisfies(r -> assertThat(((Number) r.get("n")).longValue()).isEqualTo(102L));
  }

  @Test
  void hostileAndUnknownNames_areRefusedTyped() {
    assertThatThrownBy(() -> sql.query("SELECT * FROM \"features.feature_events$nope\"").toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot run query: unknown metadata table (one of snapshots, history, refs, schemas, partitions, files,"
            + " data_files, delete_files, manifests, operations): features.feature_events$nope");
    assertThatThrownBy(() -> sql.query("SELECT * FROM \"features.missing$files\"").toList())
        .isInstanceOf(TableNotFoundException.class);
    assertThatThrownBy(() -> sql.query("SELECT * FROM \"$files\"").toList())
        .isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot run query: only $operations is store-wide (name the table as \"<namespace>.<table>$files\"): $files");
    assertThatThrownBy(() -> sql.query("SELECT * FROM features.feature_events$files").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: quote a metadata table's name as one identifier: \"features.feature_events$files\"");
    for (String name : List.of("features.feature_events$files$files", "a$b.c$files", "features.feature_events$",
        "features.feature_events$files\"\"; DROP TABLE x; --", "features.feature_events$files'", "../x$files",
        "features.feature_events $files", "$operations$operations")) {
      assertThatThrownBy(() -> sql.query("SELECT * FROM \"" + name + "\"").toList()).as(name)
          .isInstanceOf(NotFoundException.class)
          .hasMessageStartingWith("Cannot run query: unknown table (give it to the query with table(name, version)): ");
    }
    // a metadata table is read through the API only: file functions stay refused beside it
    assertThatThrownBy(() -> sql.query("SELECT * FROM \"features.feature_events$files\", read_parquet('/etc/x')").toList())
        .isInstanceOf(SqlRefusedException.class)
        .hasMessage("Cannot run query: table function not allowed: read_parquet");
  }
}
