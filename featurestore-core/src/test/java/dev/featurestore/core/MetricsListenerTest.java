package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.CommitMetrics;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.MetricsListener;
import dev.featurestore.QueryResult;
import dev.featurestore.ScanMetrics;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Iceberg's scan and commit reports reach the store's listener, one per scan and per commit. */
class MetricsListenerTest {
  @TempDir Path dir;

  private final List<ScanMetrics> scans = new CopyOnWriteArrayList<>();
  private final List<CommitMetrics> commits = new CopyOnWriteArrayList<>();

  private final MetricsListener listener = new MetricsListener() {
    @Override
    public void onScan(ScanMetrics scan) {
      scans.add(scan);
    }

    @Override
    public void onCommit(CommitMetrics commit) {
      commits.add(commit);
    }
  };

  private FeatureTable createTable(FeatureStore store) {
    return store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .partitionBy(s -> PartitionSpec.builderFor(s).bucket("entity_id", 4).build())
        .build());
  }

  @Test
  void ingest_reportsOneCommit_withItsRowsFilesAndBytes() {
    try (FeatureStore store = FeatureStore.builder().root(dir).metricsListener(listener).build()) {
      FeatureTable table = createTable(store);
      IngestResult result = table.ingest().synthetic(2_000, 7).commit();

      assertThat(commits).hasSize(1);
      CommitMetrics commit = commits.get(0);
      assertThat(commit.table()).isEqualTo(SyntheticFeatures.TABLE_ID);
      assertThat(commit.snapshotId()).isEqualTo(result.snapshotId().orElseThrow());
      assertThat(commit.operation()).isEqualTo("append");
      assertThat(commit.attempts()).isEqualTo(1);
      assertThat(commit.addedRows()).isEqualTo(2_000);
      assertThat(commit.totalRows()).isEqualTo(2_000);
      assertThat(commit.addedDataFiles()).isEqualTo(result.dataFiles()).isGreaterThan(1);
      assertThat(commit.totalDataFiles()).isEqualTo(result.dataFiles());
      assertThat(commit.addedBytes()).isEqualTo(table.stats().dataBytes());
      assertThat(commit.duration()).isPositive().isLessThan(Duration.ofMinutes(1));
    }
  }

  @Test
  void query_reportsOneScan_withPrunedFiles() {
    try (FeatureStore store = FeatureStore.builder().root(dir).metricsListener(listener).build()) {
      FeatureTable table = createTable(store);
      IngestResult result = table.ingest().synthetic(2_000, 7).commit();
      long entity;
      try (QueryResult read = table.query().select("entity_id").execute()) {
        entity = (Long) read.iterator().next().get("entity_id");
      }
      scans.clear();

      long rows = 0;
      try (QueryResult read = table.query().select("entity_id", "feature_a")
          .filter(Expressions.equal("entity_id", entity)).execute()) {
        for (var ignored : read) {
          rows++;
        }
      }

      assertThat(rows).isPositive();
      assertThat(scans).hasSize(1);
      ScanMetrics scan = scans.get(0);
      assertThat(scan.table()).isEqualTo(SyntheticFeatures.TABLE_ID);
      assertThat(scan.snapshotId()).isEqualTo(result.snapshotId().orElseThrow());
      assertThat(scan.projectedColumns()).contains("entity_id", "feature_a");
      assertThat(scan.filter()).contains("entity_id");
      // one bucket read, the other buckets pruned
      assertThat(scan.resultDataFiles()).isEqualTo(1);
      assertThat(scan.skippedDataFiles()).isEqualTo(result.dataFiles() - 1);
      assertThat(scan.resultBytes()).isPositive();
      assertThat(scan.scannedDataManifests()).isEqualTo(1);
      assertThat(scan.planningDuration()).isGreaterThanOrEqualTo(Duration.ZERO);
    }
  }

  @Test
  void failingListener_neverFailsTheCommit() {
    MetricsListener failing = new MetricsListener() {
      @Override
      public void onCommit(CommitMetrics commit) {
        throw new IllegalStateException("metrics backend down");
      }
    };
    try (FeatureStore store = FeatureStore.builder().root(dir).metricsListener(failing).build()) {
      FeatureTable table = createTable(store);
      assertThat(table.ingest().synthetic(100, 1).commit().rows()).isEqualTo(100);
      assertThat(table.query().count()).isEqualTo(100);
    }
  }
}
