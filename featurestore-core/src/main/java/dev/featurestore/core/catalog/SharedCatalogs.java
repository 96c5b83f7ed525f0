package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.Redaction;
import dev.featurestore.StorageException;
import dev.featurestore.core.storage.LocalFileIO;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogs for more than one host, opened from a {@link FeatureStoreConfig}: Iceberg's JDBC
 * catalog on a database server (PostgreSQL) and the Iceberg REST catalog. The store owns and
 * closes what these return.
 */
public final class SharedCatalogs {
  private static final Logger LOG = LoggerFactory.getLogger(SharedCatalogs.class);

  private SharedCatalogs() {}

  /**
   * Iceberg's {@link JdbcCatalog} on the database at {@link FeatureStoreConfig#catalogUri()}, its
   * tables written through {@code io}. Every commit is a compare-and-swap of the table's metadata
   * location in one row ({@code UPDATE ... WHERE metadata_location = <expected>}), so any number
   * of processes may write; losers retry up to {@link FeatureStoreConfig#commitRetries()} times.
   */
  public static JdbcCatalog jdbc(FeatureStoreConfig config, FileIO io) {
    Map<String, String> props = jdbcProperties(config);
    String uri = props.get(CatalogProperties.URI);
    String warehouse = props.get(CatalogProperties.WAREHOUSE_LOCATION);
    JdbcDrivers.register(uri);
    JdbcCatalog catalog;
    try {
      catalog = JdbcCatalogs.open(EmbeddedCatalog.CATALOG_NAME, props, io);
    } catch (RuntimeException e) {
      throw openFailed("JDBC", config, e);
    }
    LOG.info("Opened JDBC catalog {} with warehouse {}", Redaction.uri(uri), warehouse);
    return catalog;
  }

  /**
   * The properties of the JDBC catalog at {@link FeatureStoreConfig#catalogUri()}: URL, warehouse,
   * schema version, commit retries, then the config's catalog properties (user, password). The
   * store opens its catalog with them; an engine opening it by class name
   * ({@link EngineJdbcCatalog}) gets the same.
   *
   * @throws IllegalStateException if {@code config} has no catalog URL or warehouse
   */
  public static Map<String, String> jdbcProperties(FeatureStoreConfig config) {
    String uri = config.catalogUri().orElseThrow(() -> new IllegalStateException("Cannot open JDBC catalog: no URL"));
    String warehouse = config.warehouseLocation()
        .orElseThrow(() -> new IllegalStateException("Cannot open JDBC catalog: no warehouse location"));
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, uri);
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    props.put("jdbc.schema-version", "V1");
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "2");
    props.put(CatalogProperties.TABLE_DEFAULT_PREFIX + TableProperties.COMMIT_NUM_RETRIES,
        Integer.toString(config.commitRetries()));
    props.putAll(config.catalogProperties());
    return props;
  }

  /**
   * An Iceberg {@link RESTCatalog} at {@link FeatureStoreConfig#catalogUri()}; the catalog
   * properties (warehouse, token, credential, io-impl, ...) are passed as they are. The REST
   * catalog opens its own FileIO from {@code io-impl}: the library's local FileIO unless the store
   * is on object storage (then Iceberg's default, which resolves {@code s3://} to S3FileIO and
   * takes {@code s3.*} properties from the caller or the server).
   */
  public static Catalog rest(FeatureStoreConfig config) {
    Map<String, String> props = restProperties(config);
    String uri = props.get(CatalogProperties.URI);
    RESTCatalog catalog = new RESTCatalog();
    try {
      catalog.initialize(EmbeddedCatalog.CATALOG_NAME, props);
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw openFailed("REST", config, e);
    }
    LOG.info("Opened REST catalog {}", Redaction.uri(uri));
    return catalog;
  }

  /**
   * The properties of the REST catalog at {@link FeatureStoreConfig#catalogUri()}: the URI, the
   * commit retries, the library's local FileIO for tables on disk, the config's catalog
   * properties, and the OAuth2 settings Iceberg would infer, said explicitly.
   *
   * @throws IllegalStateException if {@code config} has no catalog URI
   */
  public static Map<String, String> restProperties(FeatureStoreConfig config) {
    String uri = config.catalogUri().orElseThrow(() -> new IllegalStateException("Cannot open REST catalog: no URI"));
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, uri);
    props.put(CatalogProperties.TABLE_DEFAULT_PREFIX + TableProperties.COMMIT_NUM_RETRIES,
        Integer.toString(config.commitRetries()));
    if (config.objectStorage().isEmpty() && config.fileIO().isEmpty()) {
      // tables on a local or shared disk: our NIO FileIO rather than Hadoop's (no .crc files);
      // an io-impl of the caller, or an override of the server, still wins
      props.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    }
    props.putAll(config.catalogProperties());
    if ((props.containsKey("token") || props.containsKey("credential")) && !props.containsKey("rest.auth.type")) {
      props.put("rest.auth.type", "oauth2"); // what Iceberg infers anyway, said explicitly
    }
    if (props.containsKey("token") && !props.containsKey("credential") && !props.containsKey("oauth2-server-uri")) {
      // a bearer token alone never fetches one; name the endpoint Iceberg would fall back to
      // (only used to refresh) so it does not warn on every open
      props.put("oauth2-server-uri", uri.replaceAll("/+$", "") + "/v1/oauth/tokens");
    }
    return props;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.debug("Cannot close catalog after failed open: {}", e.toString());
    }
  }

  /** The catalog's URI, the innermost message and the cause, each without the config's secrets. */
  private static StorageException openFailed(String kind, FeatureStoreConfig config, RuntimeException e) {
    java.util.Set<String> secrets = Redaction.secretsOf(config);
    return new StorageException("Cannot open " + kind + " catalog: " + Redaction.uri(config.catalogUri().orElse("?"))
        + ": " + Redaction.text(rootMessage(e), secrets), Redaction.throwable(e, secrets));
  }

  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }
}
