package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
 * retries than Iceberg's default of 4. Several processes may open one new catalog file at the same
 * moment: the ones that lose the race to create its tables use the winner's ({@link JdbcCatalogs}).
 */
public final class EmbeddedCatalog {
  /** The catalog name recorded in the SQLite file. */
  public static final String CATALOG_NAME = "featurestore";

  private EmbeddedCatalog() {}

  /** Opens (creating if needed) the SQLite catalog described by {@code config}, using {@code io}. */
  public static JdbcCatalog open(FeatureStoreConfig config, FileIO io) {
    Path file = config.catalogFile().orElseThrow(() -> new IllegalStateException("Cannot open catalog: no catalog file"));
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot create catalog directory: " + file.toAbsolutePath().getParent(), e);
    }
    Map<String, String> props = properties(config);
    checkSqliteHeader(file);
    JdbcDrivers.register(props.get(CatalogProperties.URI));
    JdbcCatalog catalog;
    try {
      catalog = JdbcCatalogs.open(CATALOG_NAME, props, io);
    } catch (RuntimeException e) {
      if (isCorruption(e)) {
        throw damaged(file, e);
      }
      throw e;
    }
    return catalog;
  }

  /**
   * The catalog properties of the embedded catalog described by {@code config}: the SQLite URL and
   * its pragmas, the warehouse, the schema version, the commit retries, then the config's own
   * catalog properties. The store opens its catalog with them, and an engine that opens the same
   * catalog by class name ({@link EngineJdbcCatalog}) gets the same ones.
   *
   * @throws IllegalStateException if {@code config} has no catalog file or warehouse
   */
  public static Map<String, String> properties(FeatureStoreConfig config) {
    Path file = config.catalogFile().orElseThrow(() -> new IllegalStateException("Cannot open catalog: no catalog file"));
    String warehouse = config.warehouseLocation().orElseThrow(() -> new IllegalStateException("Cannot open catalog: no warehouse"));
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
    return props;
  }

  private static final byte[] SQLITE_HEADER = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

  /** A damaged catalog is named on open, rather than failing later with a driver message. */
  private static void checkSqliteHeader(Path file) {
    try {
      if (!Files.exists(file) || Files.size(file) == 0) {
        return; // a new catalog
      }
      byte[] header = new byte[SQLITE_HEADER.length];
      int read;
      try (InputStream in = Files.newInputStream(file)) {
        read = in.readNBytes(header, 0, header.length);
      }
      if (read < header.length || !Arrays.equals(header, SQLITE_HEADER)) {
        throw damaged(file, null);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot open catalog: cannot read catalog file: " + file.toAbsolutePath(), e);
    }
  }

  private static boolean isCorruption(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.contains("SQLITE_NOTADB") || message.contains("SQLITE_CORRUPT")) {
        return true;
      }
    }
    return false;
  }

  private static StorageException damaged(Path file, Throwable cause) {
    String message = "Cannot open catalog: file is not a valid SQLite database: " + file.toAbsolutePath()
        + ": recover with: move it aside (with its -wal and -shm files), open the store and call recoverCatalog()";
    return cause == null ? new StorageException(message) : new StorageException(message, cause);
  }
}
