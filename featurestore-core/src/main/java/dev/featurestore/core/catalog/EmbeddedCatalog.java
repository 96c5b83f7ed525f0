package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded catalog: Iceberg's {@link JdbcCatalog} over a local SQLite file. The catalog row
 * of a table (compare-and-swap on its metadata location) is the only commit point, so object
 * stores without conditional writes are safe.
 *
 * <p>Made robust for several writers on one host: WAL journal (readers never block the writer),
 * a busy timeout (writers wait for the lock instead of failing), and more optimistic commit
 * retries than Iceberg's default of 4.
 */
public final class EmbeddedCatalog {
  /** The catalog name recorded in the SQLite file. */
  public static final String CATALOG_NAME = "featurestore";

  private EmbeddedCatalog() {}

  /** Opens (creating if needed) the SQLite catalog described by {@code config}, using {@code io}. */
  public static JdbcCatalog open(FeatureStoreConfig config, FileIO io) {
    Path file = config.catalogFile().orElseThrow(() -> new IllegalStateException("Cannot open catalog: no catalog file"));
    String warehouse = config.warehouseLocation().orElseThrow(() -> new IllegalStateException("Cannot open catalog: no warehouse"));
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot create catalog directory: " + file.toAbsolutePath().getParent(), e);
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + file.toAbsolutePath());
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    props.put("jdbc.schema-version", "V1");
    // sqlite-jdbc pragmas, passed through by Iceberg's JdbcClientPool (prefix "jdbc." removed)
    props.put("jdbc.journal_mode", "WAL");
    props.put("jdbc.busy_timeout", Long.toString(config.busyTimeout().toMillis()));
    props.put("jdbc.synchronous", "FULL");
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "2");
    props.put(CatalogProperties.TABLE_DEFAULT_PREFIX + TableProperties.COMMIT_NUM_RETRIES,
        Integer.toString(config.commitRetries()));
    props.putAll(config.catalogProperties());
    JdbcCatalog catalog = new JdbcCatalog(ignored -> io, null, true);
    catalog.initialize(CATALOG_NAME, props);
    return catalog;
  }
}
