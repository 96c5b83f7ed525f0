package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ExportResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidDataException;
import dev.featurestore.QueryResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library's own journey (create, ingest, evolve, snapshots, time travel, rollback, export,
 * stats) on the B2 profile, through the B2-behaving gate in front of a real S3 server.
 */
class S3FeatureJourneyTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  @Test
  void featureJourney_onB2ThroughGate_matchesLocalBehaviour() throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
              .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
              .build());

      IngestResult first = table.ingest().synthetic(5_000, 1).commit();
      IngestResult second = table.ingest().synthetic(2_000, 2).commit();
      table.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean").commit();
      Path csv = root.resolve("more.csv");
      Files.writeString(csv, "entity_id,event_time,feature_a,feature_b,feature_c\n"
          + "1,2026-12-01T10:00:00Z,0.5,1.5,2.5\n"
          + "2,2026-12-01T11:00:00Z,,,3.5\n");
      table.ingest().csv(csv).commit();

      // a bad row fails typed and changes nothing in the bucket's table
      long before = table.snapshots().current().orElseThrow().snapshotId();
      Path bad = root.resolve("bad.csv");
      Files.writeString(bad, "entity_id,event_time,feature_a\n3,2026-12-01T10:00:00Z,abc\n");
      assertThatThrownBy(() -> table.ingest().csv(bad).commit())
          .isInstanceOf(InvalidDataException.class)
          .hasMessage("Cannot ingest row 2: column feature_a expects double: \"abc\"");
      table.refresh();
      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(before);

      assertThat(table.snapshots().history()).extracting(s -> s.addedRows()).containsExactly(5_000L, 2_000L, 2L);
      assertThat(table.query().count()).isEqualTo(7_002);

      // time travel: the first snapshot reads with its own schema
      try (QueryResult rows = table.query().asOfSnapshot(first.snapshotId().getAsLong()).execute()) {
        assertThat(rows.schema().findField("feature_c")).isNull();
        assertThat(rows.toList()).hasSize(5_000);
        assertThat(rows.scanStats().plannedBytes()).isPositive();
      }
      List<Map<String, Object>> csvRows = table.query()
          .select("entity_id", "feature_c")
          .filter(Expressions.notNull("feature_c"))
          .execute().toList();
      assertThat(csvRows).containsExactlyInAnyOrder(
          Map.of("entity_id", 1L, "feature_c", 2.5), Map.of("entity_id", 2L, "feature_c", 3.5));

      // rollback, export, stats
      table.snapshots().rollbackTo(second.snapshotId().getAsLong());
      assertThat(table.query().count()).isEqualTo(7_000);
      ExportResult export = table.query().select("entity_id", "feature_a")
          .filter(Expressions.greaterThan("feature_a", 1.0))
          .exportParquet(root.resolve("slice.parquet"));
      assertThat(export.rows()).isEqualTo(table.query().filter(Expressions.greaterThan("feature_a", 1.0)).count());
      assertThat(export.lineage().snapshotId()).isEqualTo(second.snapshotId().getAsLong());
      TableStats stats = table.stats();
      assertThat(stats.rows()).isEqualTo(7_000);
      assertThat(stats.snapshots()).isEqualTo(3);
      assertThat(stats.writeAmplification()).isGreaterThan(1.0);
    }

    // everything lives in the bucket; only the catalog is local
    assertThat(s3.keys("warehouse/features/feature_events/data/")).isNotEmpty();
    assertThat(s3.keys("warehouse/features/feature_events/metadata/")).anyMatch(k -> k.endsWith(".metadata.json"));
    assertThat(root.resolve("catalog.db")).exists();
    assertThat(root.resolve("warehouse")).doesNotExist();
    assertThat(s3.gate().refusals()).isEmpty();
  }
}
