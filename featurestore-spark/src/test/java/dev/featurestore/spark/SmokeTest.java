package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
  @TempDir Path dir;

  @Test
  void sparkReadsAStoreTheLibraryWrote() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable events = TestTables.createEvents(store, false);
      TestTables.append(events, List.of(TestTables.event(events, 1, "2026-01-01T10:00:00Z", 1.0, null)));
      SparkSession spark = SparkSession.builder().master("local[2]")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
          .config("spark.sql.catalog.featurestore", "org.apache.iceberg.spark.SparkCatalog")
          .config("spark.sql.catalog.featurestore.type", "jdbc")
          .config("spark.sql.catalog.featurestore.uri", "jdbc:sqlite:" + dir.resolve("store/catalog.db").toAbsolutePath())
          .config("spark.sql.catalog.featurestore.jdbc.schema-version", "V1")
          .config("spark.sql.catalog.featurestore.warehouse", dir.resolve("store/warehouse").toAbsolutePath().toString())
          .config("spark.sql.catalog.featurestore.io-impl", "dev.featurestore.core.storage.LocalFileIO")
          .getOrCreate();
      spark.sql("SHOW NAMESPACES IN featurestore").show(); System.out.println(events.id());
      List<org.apache.spark.sql.Row> rows = spark.sql("SELECT * FROM featurestore." + events.id()).collectAsList();
      System.out.println(rows);
      assertThat(rows).hasSize(1);
      spark.stop();
    }
  }
}
