package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckIngestSupport.Outcome;
import static dev.featurestore.duckdb.DuckIngestSupport.checkPartitions;
import static dev.featurestore.duckdb.DuckIngestSupport.engine;
import static dev.featurestore.duckdb.DuckIngestSupport.rows;
import static dev.featurestore.duckdb.DuckIngestSupport.table;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV ingest into a store whose warehouse is a real S3 server on loopback (the B2 profile
 * through the B2-behaving gate): DuckDB writes the files into a local staging directory, core copies
 * them into the bucket through the table's FileIO and commits them; the table reads back the Java
 * path's rows, no request was refused and nothing is left in the staging directory.
 */
class DuckIngestS3Test {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  @Test
  void csvIntoABucket_copiedThroughFileIO_sameRowsAsTheJavaPath() throws Exception {
    Path file = dir.resolve("events.csv");
    Files.writeString(file, DuckIngestTest.canonicalCsv(800, 11), StandardCharsets.UTF_8);
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("s3-root"))
        .objectStorage(s3.b2ThroughGate().toBuilder().keyPrefix("ingest").build()).build()) {
      FeatureTable ours = table(store, "events", DuckIngestTest.SCHEMA, DuckIngestTest.dayAndCountry(), false);
      FeatureTable java = table(store, "events_java", DuckIngestTest.SCHEMA, DuckIngestTest.dayAndCountry(), true);
      Outcome a = Outcome.of(ours, i -> i.csv(file));
      Outcome b = Outcome.of(java, i -> i.csv(file));
      assertThat(a.failure()).isNull();
      assertThat(b.failure()).isNull();
      assertThat(engine(ours)).contains("duckdb");
      assertThat(rows(ours)).isEqualTo(rows(java));
      assertThat(checkPartitions(ours)).isEqualTo(800);
      Table iceberg = ours.unwrap(Table.class);
      for (DataFile data : iceberg.currentSnapshot().addedDataFiles(iceberg.io())) {
        assertThat(data.location()).startsWith("s3://" + S3TestServer.BUCKET + "/ingest/warehouse/");
      }
      assertThat(s3.gate().refusals()).isEmpty();
      List<Path> staging;
      try (var paths = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
        staging = paths.filter(p -> p.getFileName().toString().startsWith("featurestore-ingest-")).toList();
      }
      assertThat(staging).isEmpty();
    }
  }

  /**
   * One row into an unpartitioned table that holds rows already (the CLI's bucket journey): the
   * file's key has no empty directory level, and the result counts the engine's row only.
   */
  @Test
  void oneRowIntoAnUnpartitionedTable() throws Exception {
    Path file = dir.resolve("one.csv");
    Files.writeString(file, "entity_id,event_time,feature_a,feature_b\n7,2026-01-01T00:00:00Z,0.5,0.25\n");
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("s3-root"))
        .objectStorage(s3.b2ThroughGate().toBuilder().keyPrefix("one").build()).build()) {
      FeatureTable ours = store.createTable(dev.featurestore.TableDefinition.builder(
          dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema()).build());
      ours.ingest().synthetic(300, 1).commit();
      Outcome a = Outcome.of(ours, i -> i.csv(file));
      assertThat(a.failure()).isNull();
      assertThat(engine(ours)).contains("duckdb");
      assertThat(a.result().rows()).isEqualTo(1);
      assertThat(ours.snapshots().current().orElseThrow().totalRows()).isEqualTo(301);
      Table iceberg = ours.unwrap(Table.class);
      for (DataFile data : iceberg.currentSnapshot().addedDataFiles(iceberg.io())) {
        assertThat(data.location()).doesNotContain("//data").doesNotContain("data//");
      }
      assertThat(s3.gate().refusals()).isEmpty();
    }
  }
}
