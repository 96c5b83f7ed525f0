package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.ExportResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidDataException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.ObjectSummary;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.QueryResult;
import dev.featurestore.StorageProvider;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import dev.featurestore.UploadResult;
import dev.featurestore.core.TestClock;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The library's own journey on every provider profile (B2, R2, MinIO, Amazon S3), each through the
 * gate that answers as its provider does in front of a real S3 server: create, ingest (synthetic, a
 * CSV file, a CSV staged through the object browser), evolve, snapshots, time travel, rollback,
 * export (a local file and the bucket), stats, maintenance (compaction, manifest rewrite, expiry,
 * orphan removal), the object browser (one PUT and a multipart upload, list, delete) and a purge.
 * Not one request is refused.
 */
class S3FeatureJourneyTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;
  private final TestClock clock = new TestClock();

  @ParameterizedTest(name = "{0}")
  @EnumSource(StorageProvider.class)
  void featureJourney_onEachProfileThroughItsGate_matchesLocalBehaviour(StorageProvider provider) throws Exception {
    // a prefix per provider: the runs share the bucket
    ObjectStorage storage = s3.through(provider).toBuilder().keyPrefix(provider.name().toLowerCase(Locale.ROOT)).build();
    String tableKeys = storage.keyPrefix() + "warehouse/features/feature_events/";
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(storage).clock(clock).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
              .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
              .build());

      IngestResult first = table.ingest().synthetic(3_000, 1).commit();
      IngestResult second = table.ingest().synthetic(1_000, 2).commit();
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

      assertThat(table.snapshots().history()).extracting(s -> s.addedRows()).containsExactly(3_000L, 1_000L, 2L);
      assertThat(table.query().count()).isEqualTo(4_002);

      // time travel: the first snapshot reads with its own schema
      try (QueryResult rows = table.query().asOfSnapshot(first.snapshotId().getAsLong()).execute()) {
        assertThat(rows.schema().findField("feature_c")).isNull();
        assertThat(rows.toList()).hasSize(3_000);
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
      assertThat(table.query().count()).isEqualTo(4_000);
      ExportResult export = table.query().select("entity_id", "feature_a")
          .filter(Expressions.greaterThan("feature_a", 1.0))
          .exportParquet(root.resolve("slice.parquet"));
      assertThat(export.rows()).isEqualTo(table.query().filter(Expressions.greaterThan("feature_a", 1.0)).count());
      assertThat(export.lineage().snapshotId()).isEqualTo(second.snapshotId().getAsLong());
      ExportResult toBucket = table.query().select("entity_id").exportToBucket("journey-slice");
      assertThat(toBucket.rows()).isEqualTo(4_000);
      TableStats stats = table.stats();
      assertThat(stats.rows()).isEqualTo(4_000);
      assertThat(stats.snapshots()).isEqualTo(3);
      assertThat(stats.writeAmplification()).isGreaterThan(1.0);

      // the object browser: a CSV in one PUT, ingested from the bucket; a file in three parts
      UploadResult staged = store.objects().stage("events.csv").from(csv).commit();
      assertThat(staged.parts()).isZero();
      assertThat(table.ingest().csvObject(staged.key()).commit().rows()).isEqualTo(2);
      Path big = root.resolve("big.bin");
      byte[] bytes = new byte[11 * 1024 * 1024];
      new Random(7).nextBytes(bytes);
      Files.write(big, bytes);
      UploadResult parts = store.objects().stage("big.bin").from(big).partSize(ProviderRules.MIB_5).multipartThreshold(0)
          .commit();
      assertThat(parts.parts()).isEqualTo(3);
      assertThat(store.objects().listAll("raw/")).extracting(ObjectSummary::key, ObjectSummary::size)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("raw/big.bin", (long) bytes.length),
              org.assertj.core.groups.Tuple.tuple("raw/events.csv", Files.size(csv)));
      store.objects().delete("raw/big.bin");
      store.objects().delete("raw/events.csv");
      assertThat(store.objects().listAll("raw/")).isEmpty();

      // maintenance: every row kept
      CompactionResult compacted = table.maintenance().compact().execute();
      assertThat(compacted.rewrittenDataFiles()).isPositive();
      table.maintenance().rewriteManifests();
      ExpireResult expired = table.maintenance().expireSnapshots().retainLast(1).execute();
      assertThat(expired.expiredSnapshots()).isPositive();
      assertThat(expired.deletedDataFiles()).isPositive();
      String stray = table.location() + "/data/stray.parquet";
      try (OutputStream out = store.unwrap(FileIO.class).newOutputFile(stray).create()) {
        out.write(new byte[] {1, 2, 3});
      }
      clock.advance(OrphanFileRemoval.DEFAULT_SAFETY_WINDOW.plusMinutes(1));
      OrphanFilesResult orphans = table.maintenance().removeOrphanFiles().execute();
      assertThat(orphans.candidates()).extracting(OrphanFilesResult.OrphanFile::location).containsExactly(stray);
      assertThat(table.query().count()).isEqualTo(4_002);

      // everything lives in the bucket; only the catalog is local
      assertThat(s3.keys(tableKeys + "data/")).isNotEmpty().noneMatch(k -> k.endsWith("stray.parquet"));
      assertThat(s3.keys(tableKeys + "metadata/")).anyMatch(k -> k.endsWith(".metadata.json"));
      assertThat(s3.keys(storage.keyPrefix() + "exports/")).containsExactly(storage.keyPrefix() + "exports/journey-slice.parquet");
      assertThat(root.resolve("catalog.db")).exists();
      assertThat(root.resolve("warehouse")).doesNotExist();

      assertThat(store.dropTable(SyntheticFeatures.TABLE_ID, true)).isTrue();
    }
    assertThat(s3.keys(tableKeys)).isEmpty();
    ProviderGate gate = s3.gate(provider);
    assertThat(gate.refusals()).isEmpty();
    // B2 deletes one object per request; the others' expiry, orphan removal and purge delete in bulk
    assertThat(gate.seen().stream().anyMatch(seen -> seen.target().contains("?delete"))).isEqualTo(provider != StorageProvider.B2);
    assertThat(gate.seen().stream().anyMatch(seen -> seen.target().contains("uploadId="))).isTrue();
  }
}
