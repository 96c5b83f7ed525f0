package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.AlreadyExistsException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.ValidationException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.s3.ProviderGate;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL journey (time travel by id, time and tag, a rename, positional and equality deletes, a
 * training set) on a store whose warehouse is a real S3 server on loopback, reached with the B2
 * profile through the B2-behaving gate. The first query fetches data and delete files into the
 * cache (cold); the same query again reads nothing but metadata from the bucket (warm). Every
 * result equals the same journey on a local-disk store.
 */
class DuckS3JourneyTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  /** What one store's history produced: its snapshot ids and a time between them. */
  record History(FeatureTable events, FeatureTable labels, long first, Instant afterFirst, long last) {}

  private static History build(FeatureStore store) {
    FeatureTable events = TestTables.createEvents(store, false);
    List<Record> batch = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(event(events, i % 12, OffsetDateTime.parse("2026-01-01T00:00:00Z").plusMinutes(17L * i).toString(),
          i / 4.0, i % 5 == 0 ? null : (double) i));
    }
    DataFile file = TestTables.append(events, batch).get(0);
    long first = TestTables.currentSnapshotId(events);
    events.snapshots().createTag("v1", first);
    TestTables.tick();
    Instant afterFirst = Instant.now();
    TestTables.tick();
    events.evolveSchema().renameColumn("feature_a", "clicks").commit();
    List<Record> more = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      more.add(TestTables.record(events, "entity_id", (long) (i % 7), "event_time",
          OffsetDateTime.parse("2026-01-02T00:00:00Z").plusMinutes(31L * i), "clicks", 100.0 + i, "feature_b", null));
    }
    TestTables.append(events, more);
    TestTables.positionDelete(events, file, 0, 5, 9);
    TestTables.equalityDelete(events, "entity_id", 3L);
    long last = TestTables.currentSnapshotId(events);

    FeatureTable labels = store.createTable(TableDefinition.builder(TableId.of("features", "labels"), new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get()),
        Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()),
        Types.NestedField.optional(3, "label", Types.IntegerType.get()))).build());
    List<Record> labelRows = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      labelRows.add(TestTables.record(labels, "entity_id", (long) (i % 13), "label_time",
          OffsetDateTime.parse("2026-01-01T06:00:00Z").plusMinutes(97L * i), "label", i));
    }
    TestTables.append(labels, labelRows);
    return new History(events, labels, first, afterFirst, last);
  }

  /** Every query of the journey, by name, as sorted rows. */
  private static Map<String, List<Map<String, Object>>> journey(SqlEngine sql, History h) {
    Map<String, List<Map<String, Object>>> results = new LinkedHashMap<>();
    String all = "SELECT * FROM t";
    results.put("current", sorted(sql.query(all).table("t", h.events().query()).toList()));
    results.put("by id", sorted(sql.query(all).table("t", h.events().query().asOfSnapshot(h.first())).toList()));
    results.put("by time", sorted(sql.query(all).table("t", h.events().query().asOf(h.afterFirst())).toList()));
    results.put("by tag", sorted(sql.query(all).table("t", h.events().query().atRef("v1")).toList()));
    results.put("group by", sql.query("""
        SELECT entity_id, count(*) AS n, sum(clicks) AS s, count(feature_b) AS b FROM t GROUP BY 1 ORDER BY 1""")
        .table("t", h.events()).toList());
    results.put("training set", trainingSet(sql, h).toList());
    return results;
  }

  private static TrainingSet trainingSet(SqlEngine sql, History h) {
    return sql.trainingSet()
        .labels(h.labels().query(), "entity_id", "label_time")
        .features("ev", h.events().query().asOfSnapshot(h.last()), "entity_id", "event_time",
            Duration.ofHours(6), "clicks", "feature_b")
        .build();
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Object::toString));
    return copy;
  }

  /** The B2 profile through the gate, under a key prefix of its own (the bucket is shared by the class). */
  private static dev.featurestore.ObjectStorage storage(String prefix) {
    return s3.b2ThroughGate().toBuilder().keyPrefix(prefix).build();
  }

  private static long dataGets(List<ProviderGate.Seen> seen) {
    return seen.stream().filter(s -> s.method().equals("GET") && s.target().contains("/data/")).count();
  }

  @Test
  void journey_onB2ThroughGate_coldThenWarmCache_equalsLocalDisk() throws Exception {
    Map<String, List<Map<String, Object>>> expected;
    try (FeatureStore local = FeatureStore.openLocal(dir.resolve("local"));
         SqlEngine sql = DuckQueries.builder(local).threads(1).memoryLimit("512MB").build()) {
      expected = journey(sql, build(local));
    }
    assertThat(expected.get("current")).hasSize(60 + 20 - 3 - 5 - 3); // 3 positions, entity 3 (5 + 3 rows)
    assertThat(expected.get("by id")).hasSize(60);

    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("s3-root")).objectStorage(storage("journey"))
        .build();
         SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB")
             .workDirectory(dir.resolve("s3-work")).build()) {
      History h = build(store);
      assertThat(h.events().unwrap(org.apache.iceberg.Table.class).location()).startsWith("s3://");

      // cold: every data and delete file of the version is fetched through the gate
      s3.gate().reset();
      long coldFiles;
      try (SqlResult cold = sql.query("SELECT * FROM t").table("t", h.events()).execute()) {
        cold.toList();
        TableScanStats stats = cold.stats().tables().get(0);
        assertThat(stats.plannedDataFiles()).isEqualTo(2);
        assertThat(stats.plannedDeleteFiles()).isEqualTo(2);
        assertThat(stats.filesFromCache()).isZero();
        assertThat(stats.filesFetched()).isEqualTo(4);
        assertThat(stats.bytesFetched()).isEqualTo(stats.plannedBytes());
        coldFiles = stats.filesFetched();
      }
      assertThat(dataGets(s3.gate().seen())).isGreaterThanOrEqualTo(4);
      assertThat(sql.cacheStats().misses()).isEqualTo(4);

      // warm: the same query reads nothing from the bucket (plan and files cached)
      s3.gate().reset();
      try (SqlResult warm = sql.query("SELECT * FROM t").table("t", h.events()).execute()) {
        assertThat(sorted(warm.toList())).isEqualTo(expected.get("current"));
        TableScanStats stats = warm.stats().tables().get(0);
        assertThat(stats.filesFetched()).isZero();
        assertThat(stats.bytesFetched()).isZero();
        assertThat(stats.filesFromCache()).isEqualTo(coldFiles);
      }
      assertThat(dataGets(s3.gate().seen())).isZero();
      assertThat(s3.gate().seen()).isEmpty(); // the engine's plan cache holds this snapshot's files
      assertThat(s3.gate().refusals()).isEmpty();

      // the whole journey equals the local-disk store's
      Map<String, List<Map<String, Object>>> actual = journey(sql, h);
      assertThat(actual).isEqualTo(expected);
      // a second run is served from the cache entirely
      s3.gate().reset();
      assertThat(journey(sql, h)).isEqualTo(expected);
      assertThat(dataGets(s3.gate().seen())).isZero();
    }
  }

  @Test
  void trainingSet_exportToBucket_writesExportsWithLineage() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("s3-root")).objectStorage(storage("export"))
        .build();
         SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      History h = build(store);
      TrainingSet set = trainingSet(sql, h);
      long rows = set.toList().size();
      SqlExport export = set.exportToBucket("train-2026-01");
      assertThat(export.location()).isEqualTo("s3://" + S3TestServer.BUCKET + "/export/exports/train-2026-01.parquet");
      assertThat(export.file()).isEmpty();
      assertThat(export.rows()).isEqualTo(rows).isEqualTo(30);
      assertThat(store.objects().head("exports/train-2026-01.parquet").size()).isEqualTo(export.bytes());
      assertThat(s3.keys("export/exports/")).containsExactly("export/exports/train-2026-01.parquet");

      // the footer holds the lineage the result returned: tables, snapshot ids, parameters
      Path copy = dir.resolve("copy.parquet");
      try (InputStream in = store.objects().get("exports/train-2026-01.parquet")) {
        Files.copy(in, copy);
      }
      String footer;
      try (ParquetFileReader reader = ParquetFileReader.open(new org.apache.parquet.io.LocalInputFile(copy))) {
        footer = reader.getFooter().getFileMetaData().getKeyValueMetaData().get("featurestore.lineage");
      }
      assertThat(footer).isEqualTo(export.lineage());
      JsonNode lineage = new ObjectMapper().readTree(footer);
      assertThat(lineage.path("tables")).hasSize(2);
      assertThat(lineage.path("tables").get(0).path("table").asText()).isEqualTo("features.labels");
      assertThat(lineage.path("tables").get(1).path("snapshot_id").asLong()).isEqualTo(h.last());
      assertThat(lineage.path("parameters").path("kind").asText()).isEqualTo("training_set");
      assertThat(lineage.path("parameters").path("labels").path("time").asText()).isEqualTo("label_time");
      JsonNode features = lineage.path("parameters").path("features").get(0);
      assertThat(features.path("ttl").asText()).isEqualTo("PT6H");
      assertThat(features.path("columns").toString()).isEqualTo("[\"clicks\",\"feature_b\"]");

      try (ParquetFileReader reader = ParquetFileReader.open(new org.apache.parquet.io.LocalInputFile(copy))) {
        assertThat(reader.getRecordCount()).isEqualTo(30);
        assertThat(reader.getFooter().getFileMetaData().getSchema().getFields()).extracting(f -> f.getName())
            .containsExactly("entity_id", "label_time", "label", "ev__clicks", "ev__feature_b");
      }
      assertThatThrownBy(() -> set.exportToBucket("train-2026-01.parquet"))
          .isInstanceOf(AlreadyExistsException.class)
          .hasMessage("Cannot export query: object already exists: exports/train-2026-01.parquet");
      assertThatThrownBy(() -> set.exportToBucket("../escape"))
          .isExactlyInstanceOf(dev.featurestore.InvalidArgumentException.class)
          .hasMessage("Cannot use object key: parent segment: ../escape");

      // a failed upload leaves no object
      s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains("/exports/"));
      assertThatThrownBy(() -> set.exportToBucket("fails")).isInstanceOf(dev.featurestore.StorageException.class);
      s3.gate().reset();
      assertThat(s3.keys("export/exports/fails")).isEmpty();
      try (var files = Files.list(sql instanceof DuckEngine e ? e.workDirectory().resolve("exports") : dir)) {
        assertThat(files).isEmpty(); // no local copy left behind either
      }
    }
  }

  @Test
  void exportToBucket_onLocalStore_isRefused() {
    try (FeatureStore local = FeatureStore.openLocal(dir.resolve("local"));
         SqlEngine sql = DuckQueries.open(local)) {
      assertThatThrownBy(() -> sql.query("SELECT 1 AS x").exportToBucket("x"))
          .isInstanceOf(ValidationException.class)
          .hasMessage("Cannot export query to bucket: the store is not on object storage, use exportParquet(Path): x");
    }
  }
}
