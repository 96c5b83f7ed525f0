package dev.featurestore.core.catalog;

import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * Iceberg's {@link JdbcCatalog} (the embedded SQLite catalog and the shared PostgreSQL one) whose
 * table operations write the {@link VersionHint} after each commit ({@link HintingTableOperations}).
 */
final class HintingJdbcCatalog extends JdbcCatalog {
  HintingJdbcCatalog(Function<Map<String, String>, FileIO> io, Function<Map<String, String>, JdbcClientPool> pool) {
    super(io, pool, true);
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new HintingTableOperations(super.newTableOps(identifier), identifier.toString());
  }
}
