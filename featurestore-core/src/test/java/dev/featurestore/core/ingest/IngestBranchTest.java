package dev.featurestore.core.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.ValidationException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Write-audit-publish: ingest into a branch, audit it, publish it to main. */
class IngestBranchTest {
  @TempDir Path dir;

  private static TableDefinition events() {
    return TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build();
  }

  @Test
  void writeAuditPublish_branchIngestIsInvisibleOnMainUntilPublished() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(events());
      long base = table.ingest().synthetic(100, 1).commit().snapshotId().getAsLong();
      table.snapshots().createBranch("audit", base);

      long staged = table.ingest().synthetic(40, 2).toBranch("audit").commit().snapshotId().getAsLong();

      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(base);
      assertThat(table.query().count()).isEqualTo(100);
      assertThat(table.query().atRef("audit").count()).isEqualTo(140);
      assertThat(table.snapshots().refs()).containsEntry("audit", staged).containsEntry("main", base);

      table.snapshots().publish("audit");
      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(staged);
      assertThat(table.query().count()).isEqualTo(140);
    }
  }

  @Test
  void ingestToUnknownBranch_failsAndLeavesNoFiles() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(events());
      long base = table.ingest().synthetic(10, 1).commit().snapshotId().getAsLong();
      assertThatThrownBy(() -> table.ingest().synthetic(10, 2).toBranch("nope").commit())
          .isInstanceOf(NotFoundException.class)
          .hasMessage("Cannot ingest to branch: unknown branch: nope");
      assertThat(table.snapshots().current().orElseThrow().snapshotId()).isEqualTo(base);
      assertThat(IngestTestSupport.dataFilesOnDisk(table)).hasSize(
          (int) table.snapshots().current().orElseThrow().addedDataFiles());
    }
  }

  @Test
  void ingestToTag_fails() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(events());
      long base = table.ingest().synthetic(10, 1).commit().snapshotId().getAsLong();
      table.snapshots().createTag("v1", base);
      assertThatThrownBy(() -> table.ingest().synthetic(10, 2).toBranch("v1").commit())
          .isInstanceOf(ValidationException.class)
          .hasMessage("Cannot ingest to branch: ref is a tag: v1");
    }
  }

  @Test
  void reportedSnapshot_isFoundByTheIngestsOwnIdInTheSummary() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(events());
      long first = table.ingest().synthetic(10, 1).commit().snapshotId().getAsLong();
      long second = table.ingest().synthetic(10, 2).commit().snapshotId().getAsLong();
      var history = table.snapshots().history();
      assertThat(history).extracting(s -> s.snapshotId()).containsExactly(first, second);
      assertThat(history.get(0).summary().get(IngestOperation.INGEST_ID_PROPERTY))
          .isNotBlank()
          .isNotEqualTo(history.get(1).summary().get(IngestOperation.INGEST_ID_PROPERTY));
      assertThatThrownBy(() -> table.ingest().snapshotProperty(IngestOperation.INGEST_ID_PROPERTY, "x"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("Cannot set snapshot property: reserved key: featurestore.ingest.id");
    }
  }
}
