package dev.featurestore.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import dev.featurestore.TableStats.CommitStats;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;

class TableStatisticsTest extends LocalStoreTest {
  private FeatureTable create(boolean partitioned, String... properties) {
    TableDefinition.Builder def = TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema());
    if (partitioned) {
      def.partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build());
    }
    for (int i = 0; i < properties.length; i += 2) {
      def.property(properties[i], properties[i + 1]);
    }
    return store.createTable(def.build());
  }

  private static Snapshot append(FeatureTable table, int rows, int days) {
    Table iceberg = table.unwrap(Table.class);
    return StatsTestData.append(iceberg, StatsTestData.rows(iceberg.schema(), rows, days));
  }

  @Test
  void emptyTable_hasZerosAndNoCommits() {
    FeatureTable table = create(true);

    TableStats stats = table.stats();

    assertThat(stats.table()).isEqualTo(SyntheticFeatures.TABLE_ID);
    assertThat(stats.rows()).isZero();
    assertThat(stats.dataFiles()).isZero();
    assertThat(stats.deleteFiles()).isZero();
    assertThat(stats.snapshots()).isZero();
    assertThat(stats.dataBytes()).isZero();
    assertThat(stats.manifestBytes()).isZero();
    assertThat(stats.writeAmplification()).isZero();
    assertThat(stats.commits()).isEmpty();
    // the table's first metadata.json exists even without a snapshot
    assertThat(stats.metadataBytes()).isEqualTo(sizeOf(tableDir(table), isMetadataJson()));
    assertThat(stats.totalBytes()).isEqualTo(stats.metadataBytes());
  }

  @Test
  void appends_countRowsFilesAndSnapshotsExactly() {
    FeatureTable table = create(false);
    append(table, 10, 1);
    append(table, 20, 1);
    append(table, 30, 1);

    TableStats stats = table.stats();

    assertThat(stats.rows()).isEqualTo(60);
    assertThat(stats.dataFiles()).isEqualTo(3);
    assertThat(stats.deleteFiles()).isZero();
    assertThat(stats.snapshots()).isEqualTo(3);
    assertThat(stats.commits()).extracting(CommitStats::addedRows).containsExactly(10L, 20L, 30L);
    assertThat(stats.commits()).extracting(CommitStats::totalRows).containsExactly(10L, 30L, 60L);
    assertThat(stats.commits()).extracting(CommitStats::deletedRows).containsExactly(0L, 0L, 0L);
    assertThat(stats.commits()).extracting(CommitStats::operation).containsOnly("append");
  }

  @Test
  void partitionedAppends_countOneFilePerPartition() {
    FeatureTable table = create(true);
    append(table, 90, 3);
    append(table, 40, 2);

    TableStats stats = table.stats();

    assertThat(stats.rows()).isEqualTo(130);
    assertThat(stats.dataFiles()).isEqualTo(5);
    assertThat(stats.snapshots()).isEqualTo(2);
  }

  @Test
  void bytes_matchFilesOnDisk() {
    FeatureTable table = create(true);
    append(table, 100, 2);
    append(table, 500, 3);
    append(table, 1000, 1);
    Path root = tableDir(table);

    TableStats stats = table.stats();

    long dataOnDisk = sizeOf(root.resolve("data"), p -> p.toString().endsWith(".parquet"));
    long avroOnDisk = sizeOf(root.resolve("metadata"), p -> p.toString().endsWith(".avro"));
    long jsonOnDisk = sizeOf(root.resolve("metadata"), isMetadataJson());
    assertThat(dataOnDisk).isPositive();
    assertThat(stats.dataBytes()).isEqualTo(dataOnDisk);
    assertThat(stats.manifestBytes()).isEqualTo(avroOnDisk);
    assertThat(stats.metadataBytes()).isEqualTo(jsonOnDisk).isPositive();
    assertThat(stats.totalBytes()).isEqualTo(dataOnDisk + avroOnDisk + jsonOnDisk);
    assertThat(stats.commits().stream().mapToLong(CommitStats::dataBytesWritten).sum()).isEqualTo(dataOnDisk);
    // every manifest, manifest list and snapshot metadata.json is attributed to exactly one
    // commit; only the creation metadata.json (no snapshot) belongs to none
    long creationMetadata = sizeOf(root.resolve("metadata"), p -> p.getFileName().toString().startsWith("00000-"));
    assertThat(stats.commits().stream().mapToLong(CommitStats::metadataBytesWritten).sum())
        .isEqualTo(avroOnDisk + jsonOnDisk - creationMetadata);
    long everWritten = stats.commits().stream()
        .mapToLong(c -> c.dataBytesWritten() + c.metadataBytesWritten()).sum();
    assertThat(stats.writeAmplification())
        .isCloseTo((double) everWritten / dataOnDisk, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void commitMetadata_isTheFilesThatCommitWrote_evenWithPropertyChangesBetween() {
    FeatureTable table = create(false);
    Table iceberg = table.unwrap(Table.class);
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Snapshot snapshot = append(table, 50 * (i + 1), 1);
      String metadataFile = ((HasTableOperations) iceberg).operations().current().metadataFileLocation();
      long manifests = 0;
      for (ManifestFile manifest : snapshot.allManifests(iceberg.io())) {
        if (manifest.snapshotId() == snapshot.snapshotId()) {
          manifests += fileSize(manifest.path());
        }
      }
      expected.add(manifests + fileSize(snapshot.manifestListLocation()) + fileSize(metadataFile));
      // a metadata-only change between commits writes a metadata.json that belongs to no commit
      iceberg.updateProperties().set("test.round", Integer.toString(i)).commit();
    }

    TableStats stats = table.stats();

    assertThat(stats.commits()).extracting(CommitStats::metadataBytesWritten).containsExactlyElementsOf(expected);
  }

  @Test
  void smallCommit_writesMoreMetadataThanData() {
    FeatureTable table = create(true);
    append(table, 100, 1);

    TableStats stats = table.stats();

    CommitStats commit = stats.commits().get(0);
    assertThat(commit.dataBytesWritten()).isPositive();
    assertThat(commit.metadataBytesWritten()).isPositive();
    assertThat(commit.writeAmplification()).isGreaterThan(1.0);
    assertThat(commit.writeAmplification())
        .isEqualTo((double) (commit.dataBytesWritten() + commit.metadataBytesWritten()) / commit.dataBytesWritten());
    assertThat(stats.writeAmplification()).isGreaterThan(1.0);
  }

  @Test
  void deleteCommit_addsNoDataAndHasZeroAmplification() {
    FeatureTable table = create(false);
    append(table, 40, 1);
    table.unwrap(Table.class).newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();

    TableStats stats = table.stats();

    CommitStats delete = stats.commits().get(1);
    assertThat(delete.operation()).isEqualTo("delete");
    assertThat(delete.addedRows()).isZero();
    assertThat(delete.deletedRows()).isEqualTo(40);
    assertThat(delete.totalRows()).isZero();
    assertThat(delete.dataBytesWritten()).isZero();
    assertThat(delete.metadataBytesWritten()).isPositive();
    assertThat(delete.writeAmplification()).isZero();
    assertThat(stats.rows()).isZero();
    assertThat(stats.dataFiles()).isZero();
    assertThat(stats.dataBytes()).isZero();
    // the first snapshot's manifest still exists and is still counted
    assertThat(stats.manifestBytes()).isEqualTo(sizeOf(tableDir(table).resolve("metadata"), p -> p.toString().endsWith(".avro")));
    assertThat(stats.writeAmplification()).isPositive();
  }

  @Test
  void commits_areOldestFirstWithIncreasingTotalRows() {
    FeatureTable table = create(true);
    List<Long> ids = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      ids.add(append(table, 10 * i, 2).snapshotId());
    }

    List<CommitStats> commits = table.stats().commits();

    assertThat(commits).extracting(CommitStats::snapshotId).containsExactlyElementsOf(ids);
    assertThat(commits).extracting(CommitStats::totalRows).isSorted().doesNotHaveDuplicates();
    assertThat(commits).extracting(CommitStats::timestamp).isSorted();
    assertThat(commits.get(4).totalRows()).isEqualTo(150);
  }

  @Test
  void expiredMetadataFiles_areSkipped() {
    FeatureTable table = create(false,
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1",
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
    for (int i = 0; i < 4; i++) {
      append(table, 20, 1);
    }
    Path metadataDir = tableDir(table).resolve("metadata");

    TableStats stats = table.stats();

    assertThat(stats.snapshots()).isEqualTo(4);
    assertThat(stats.metadataBytes()).isEqualTo(sizeOf(metadataDir, isMetadataJson()));
    assertThat(stats.manifestBytes()).isEqualTo(sizeOf(metadataDir, p -> p.toString().endsWith(".avro")));
    // the two oldest commits' metadata.json files are gone: only manifests and lists remain
    CommitStats oldest = stats.commits().get(0);
    CommitStats newest = stats.commits().get(3);
    assertThat(oldest.metadataBytesWritten()).isPositive().isLessThan(newest.metadataBytesWritten());
  }

  @Test
  void stats_seeCommitsMadeThroughAnotherHandle() {
    FeatureTable first = create(false);
    FeatureTable second = store.table(SyntheticFeatures.TABLE_ID);
    append(first, 25, 1);

    assertThat(second.stats().rows()).isEqualTo(25);
  }

  private static Predicate<Path> isMetadataJson() {
    // the catalog's metadata files; the v<N>.metadata.json copies for path-based readers are not the table's
    return p -> p.getFileName().toString().endsWith(".metadata.json")
        && !dev.featurestore.core.catalog.VersionHint.isCopy(p.getFileName().toString());
  }

  private static Path tableDir(FeatureTable table) {
    return LocalFileIO.toPath(table.location());
  }

  private static long fileSize(String location) {
    try {
      return Files.size(LocalFileIO.toPath(location));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long sizeOf(Path root, Predicate<Path> filter) {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).filter(filter).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
