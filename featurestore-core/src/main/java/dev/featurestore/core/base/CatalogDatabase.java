package dev.featurestore.core.base;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.core.catalog.JdbcDrivers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The store's catalog database, for the library's own small tables beside Iceberg's
 * ({@link CatalogLease}'s leases, {@link OperationLog}'s log): the embedded SQLite file or the JDBC
 * catalog's database, connected with the catalog's {@code jdbc.*} properties (user, password,
 * pragmas). REST and caller-supplied catalogs have no database the library can reach.
 *
 * @param url the JDBC URL (may hold credentials: never put it in a message)
 * @param properties the driver properties
 */
record CatalogDatabase(String url, Properties properties) {
  static Optional<CatalogDatabase> of(FeatureStoreConfig config) {
    Properties props = new Properties();
    for (Map.Entry<String, String> e : config.catalogProperties().entrySet()) {
      if (e.getKey().startsWith("jdbc.") && !e.getKey().equals("jdbc.schema-version")) {
        props.setProperty(e.getKey().substring("jdbc.".length()), e.getValue());
      }
    }
    switch (config.catalogKind()) {
      case EMBEDDED_SQLITE: {
        Optional<java.nio.file.Path> file = config.catalogFile();
        if (file.isEmpty()) {
          return Optional.empty();
        }
        props.putIfAbsent("busy_timeout", Long.toString(config.busyTimeout().toMillis()));
        props.putIfAbsent("journal_mode", "WAL");
        return Optional.of(new CatalogDatabase("jdbc:sqlite:" + file.get().toAbsolutePath(), props));
      }
      case JDBC:
        return config.catalogUri().map(uri -> new CatalogDatabase(uri, props));
      default:
        return Optional.empty();
    }
  }

  /** A new autocommit connection. */
  Connection connect() throws SQLException {
    JdbcDrivers.register(url);
    Connection c = DriverManager.getConnection(url, properties);
    c.setAutoCommit(true);
    return c;
  }

  @Override
  public String toString() {
    return "CatalogDatabase{" + dev.featurestore.Redaction.uri(url) + "}";
  }
}
