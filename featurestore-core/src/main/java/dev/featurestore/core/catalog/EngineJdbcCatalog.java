package dev.featurestore.core.catalog;

import java.util.Map;
import org.apache.iceberg.CatalogProperties;

/**
 * The store's JDBC catalog (the embedded SQLite file or a shared PostgreSQL database) for an engine
 * that opens a catalog by class name, such as Spark's {@code catalog-impl}: Iceberg's JDBC catalog
 * with the store's own behaviour. Whatever name the engine gives the catalog, it reads and writes
 * the rows of the store's catalog name ({@value EmbeddedCatalog#CATALOG_NAME}; Iceberg's JDBC
 * catalog sees only the rows of its own name), every commit writes the {@link VersionHint} as the
 * store's do, and the database's JDBC driver is registered first. Pass it the properties of
 * {@link EmbeddedCatalog#properties} or {@link SharedCatalogs#jdbcProperties} and an
 * {@code io-impl}.
 *
 * <p>Public with a no-arg constructor because engines load it by class name; not part of the
 * library's compatibility promise.
 */
public final class EngineJdbcCatalog extends HintingJdbcCatalog {
  public EngineJdbcCatalog() {
    super(null, null); // the FileIO from io-impl, the connection pool from the properties
  }

  @Override
  public void initialize(String name, Map<String, String> properties) {
    String uri = properties.get(CatalogProperties.URI);
    if (uri != null) {
      JdbcDrivers.register(uri);
    }
    super.initialize(EmbeddedCatalog.CATALOG_NAME, properties);
  }
}
