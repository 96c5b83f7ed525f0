package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedCatalogTest {
  @TempDir Path dir;

  @Test
  void sqliteCatalog_runsInWalMode_andRecordsTables() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
          Statement s = c.createStatement()) {
        try (ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
          rs.next();
          assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
        }
        try (ResultSet rs = s.executeQuery(
            "SELECT catalog_name, table_namespace, table_name, metadata_location FROM iceberg_tables")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEqualTo(EmbeddedCatalog.CATALOG_NAME);
          assertThat(rs.getString(2)).isEqualTo("features");
          assertThat(rs.getString(3)).isEqualTo("feature_events");
          assertThat(rs.getString(4)).endsWith(".metadata.json").contains("/warehouse/features/feature_events/metadata/");
          assertThat(rs.next()).isFalse();
        }
      }
    }
  }

  @Test
  void newTables_getTheLibraryDefaults_andTheStoresCommitRetries() {
    try (FeatureStore store = FeatureStore.builder().root(dir).commitRetries(33).build()) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
              .property(TableProperties.PARQUET_COMPRESSION, "snappy")
              .build());
      assertThat(table.properties())
          .containsEntry(TableProperties.COMMIT_NUM_RETRIES, "33")
          .containsEntry(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
          .containsEntry(TableProperties.PARQUET_COMPRESSION, "snappy");
      assertThat(table.unwrap(Table.class).io()).isSameAs(store.unwrap(org.apache.iceberg.io.FileIO.class));
    }
  }
}
