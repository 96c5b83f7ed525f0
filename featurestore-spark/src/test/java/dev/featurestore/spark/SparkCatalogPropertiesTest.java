package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.core.catalog.EngineJdbcCatalog;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.s3.FeatureStoreS3ClientFactory;
import dev.featurestore.core.storage.s3.SingleDeleteS3FileIO;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Spark catalog settings of each catalog kind and storage the store supports. */
class SparkCatalogPropertiesTest {
  @TempDir Path dir;

  private static ObjectStorage b2() {
    return ObjectStorage.builder(StorageProvider.B2).region("us-west-004").bucket("features")
        .credentials("key-id", "secret-key").build();
  }

  @Test
  void embeddedSqlite_isTheStoresCatalogFileWithItsPragmas_andTheLocalFileIO() {
    FeatureStoreConfig config = FeatureStore.builder().root(dir).config();
    Map<String, String> settings = SparkFeatureStore.sessionProperties(config, "fs");
    assertThat(settings).containsEntry("spark.sql.catalog.fs", "org.apache.iceberg.spark.SparkCatalog")
        .containsEntry("spark.sql.catalog.fs.catalog-impl", EngineJdbcCatalog.class.getName())
        .containsEntry("spark.sql.catalog.fs.uri", "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath())
        .containsEntry("spark.sql.catalog.fs.warehouse", dir.resolve("warehouse").toAbsolutePath().toString())
        .containsEntry("spark.sql.catalog.fs.jdbc.schema-version", "V1")
        .containsEntry("spark.sql.catalog.fs.jdbc.journal_mode", "WAL")
        .containsEntry("spark.sql.catalog.fs.table-default.commit.retry.num-retries", "20")
        .containsEntry("spark.sql.catalog.fs.io-impl", LocalFileIO.class.getName())
        .containsEntry("spark.sql.catalog.fs.cache-enabled", "false");
  }

  @Test
  void postgresJdbc_andAB2Bucket_getTheProviderProfile() {
    FeatureStoreConfig config = FeatureStore.builder()
        .jdbcCatalog("jdbc:postgresql://db.internal:5432/features", "featurestore", "pg-secret")
        .objectStorage(b2()).config();
    Map<String, String> settings = SparkFeatureStore.sessionProperties(config, "featurestore");
    assertThat(settings)
        .containsEntry("spark.sql.catalog.featurestore.catalog-impl", EngineJdbcCatalog.class.getName())
        .containsEntry("spark.sql.catalog.featurestore.uri", "jdbc:postgresql://db.internal:5432/features")
        .containsEntry("spark.sql.catalog.featurestore.jdbc.user", "featurestore")
        .containsEntry("spark.sql.catalog.featurestore.jdbc.password", "pg-secret")
        .containsEntry("spark.sql.catalog.featurestore.warehouse", "s3://features/warehouse")
        .containsEntry("spark.sql.catalog.featurestore.io-impl", SingleDeleteS3FileIO.class.getName())
        .containsEntry("spark.sql.catalog.featurestore.s3.client-factory-impl", FeatureStoreS3ClientFactory.class.getName())
        .containsEntry("spark.sql.catalog.featurestore.featurestore.storage.provider", "B2")
        .containsEntry("spark.sql.catalog.featurestore.client.region", "us-west-004")
        .containsEntry("spark.sql.catalog.featurestore.s3.endpoint", "https://s3.us-west-004.backblazeb2.com")
        .containsEntry("spark.sql.catalog.featurestore.s3.access-key-id", "key-id")
        .containsEntry("spark.sql.catalog.featurestore.s3.secret-access-key", "secret-key");
  }

  @Test
  void rest_passesTheStoresRestProperties() {
    FeatureStoreConfig config = FeatureStore.builder().restCatalog("https://catalog.example.com/api/catalog")
        .catalogProperty("warehouse", "features").catalogProperty("token", "t0ken").config();
    Map<String, String> settings = SparkFeatureStore.sessionProperties(config, "fs");
    assertThat(settings).containsEntry("spark.sql.catalog.fs.type", "rest")
        .containsEntry("spark.sql.catalog.fs.uri", "https://catalog.example.com/api/catalog")
        .containsEntry("spark.sql.catalog.fs.warehouse", "features")
        .containsEntry("spark.sql.catalog.fs.token", "t0ken")
        .containsEntry("spark.sql.catalog.fs.rest.auth.type", "oauth2")
        .containsEntry("spark.sql.catalog.fs.io-impl", LocalFileIO.class.getName())
        .doesNotContainKey("spark.sql.catalog.fs.catalog-impl");
  }

  @Test
  void aCatalogObject_orAColdTier_orABadName_areRefused() {
    assertThatThrownBy(() -> SparkFeatureStore.sessionProperties(
        FeatureStore.builder().catalog(new InMemoryCatalog()).warehouseLocation(dir.toString()).config(), "fs"))
        .isInstanceOf(InvalidStateException.class)
        .hasMessageStartingWith("Cannot configure Spark catalog: the store uses a catalog object passed to catalog(...)");
    assertThatThrownBy(() -> SparkFeatureStore.sessionProperties(
        FeatureStore.builder().root(dir).coldStorage(b2()).config(), "fs"))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot configure Spark catalog: the store tiers data files to cold storage, which only the store "
            + "reads (through its local cache): features");
    assertThatThrownBy(() -> SparkFeatureStore.sessionProperties(FeatureStore.builder().root(dir).config(), "my-catalog"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot configure Spark catalog: not a plain identifier: my-catalog");
  }
}
