package dev.featurestore.spark;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.catalog.EmbeddedCatalog;
import dev.featurestore.core.catalog.EngineJdbcCatalog;
import dev.featurestore.core.catalog.SharedCatalogs;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

/**
 * The options of Iceberg's {@code SparkCatalog} for a store's catalog and storage: the same
 * properties the store opens its own catalog with (core's catalog property builders), the catalog
 * class, and the FileIO with the store's storage settings.
 *
 * <ul>
 *   <li>Embedded SQLite and JDBC (PostgreSQL): {@link EngineJdbcCatalog} as {@code catalog-impl}, so
 *       Spark reads the rows of the store's catalog name whatever the Spark catalog is called, and
 *       Spark's commits write the version hints the store's commits write.
 *   <li>REST: {@code type=rest} with the store's REST properties (URI, token or credential, ...).
 *   <li>Storage: local disk through the library's {@link LocalFileIO}; a bucket through the
 *       provider's FileIO and client factory ({@link ObjectStorageIO#fileIOProperties}: B2 gets
 *       checksums only when required, the user agent, path style, region, one-by-one deletes).
 * </ul>
 *
 * Spark's table cache is off: the library commits beside Spark, and a cached table would answer
 * with an old snapshot for 30 seconds.
 */
final class SparkCatalogProperties {
  static final String SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog";

  private SparkCatalogProperties() {}

  /** The catalog options (keys without the {@code spark.sql.catalog.<name>.} prefix). Hold credentials: never log them. */
  static Map<String, String> of(FeatureStoreConfig config) {
    InvalidArgumentException.requireNonNull(config, "configure Spark catalog", "config");
    if (config.coldStorage().isPresent()) {
      throw new InvalidStateException("Cannot configure Spark catalog: the store tiers data files to cold storage, which "
          + "only the store reads (through its local cache): " + config.coldStorage().get().bucket());
    }
    Map<String, String> props = new LinkedHashMap<>();
    switch (config.catalogKind()) {
      case EMBEDDED_SQLITE -> {
        props.put(CatalogProperties.CATALOG_IMPL, EngineJdbcCatalog.class.getName());
        props.putAll(new TreeMap<>(EmbeddedCatalog.properties(config)));
      }
      case JDBC -> {
        props.put(CatalogProperties.CATALOG_IMPL, EngineJdbcCatalog.class.getName());
        props.putAll(new TreeMap<>(SharedCatalogs.jdbcProperties(config)));
      }
      case REST -> {
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        // the REST catalog's own FileIO choice (local FileIO on disk, the server's for buckets) stays
        props.putAll(new TreeMap<>(SharedCatalogs.restProperties(config)));
        props.put(CatalogProperties.CACHE_ENABLED, "false");
        return props;
      }
      case CUSTOM -> throw new InvalidStateException("Cannot configure Spark catalog: the store uses a catalog object "
          + "passed to catalog(...), which has no properties Spark could open it with: use the embedded, JDBC or REST catalog: "
          + config.catalog().map(c -> c.name()).orElse("?"));
      default -> throw new InvalidStateException("Cannot configure Spark catalog: unknown catalog kind: " + config.catalogKind());
    }
    if (config.fileIO().isPresent()) {
      FileIO io = config.fileIO().get();
      props.put(CatalogProperties.FILE_IO_IMPL, io.getClass().getName());
      props.putAll(io.properties());
    } else if (config.objectStorage().isPresent()) {
      props.put(CatalogProperties.FILE_IO_IMPL, ObjectStorageIO.fileIOImpl(config.objectStorage().get()));
      props.putAll(new TreeMap<>(ObjectStorageIO.fileIOProperties(config.objectStorage().get())));
    } else {
      props.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    }
    props.put(CatalogProperties.CACHE_ENABLED, "false");
    return props;
  }

  /** {@link #of} as Spark session settings of the catalog {@code name}, with the catalog class. */
  static Map<String, String> sessionProperties(FeatureStoreConfig config, String name) {
    checkName(name);
    Map<String, String> settings = new LinkedHashMap<>();
    String prefix = "spark.sql.catalog." + name;
    settings.put(prefix, SPARK_CATALOG);
    of(config).forEach((key, value) -> settings.put(prefix + "." + key, value));
    return settings;
  }

  static String checkName(String name) {
    InvalidArgumentException.requireNonNull(name, "configure Spark catalog", "name");
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new InvalidArgumentException("Cannot configure Spark catalog: not a plain identifier: "
          + dev.featurestore.FeatureStoreException.printable(name));
    }
    return name;
  }
}
