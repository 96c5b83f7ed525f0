package dev.featurestore.core.catalog;

import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * Iceberg's {@link JdbcCatalog} (the embedded SQLite catalog and the shared PostgreSQL one) whose
 * table operations write the {@link VersionHint} after each commit ({@link HintingTableOperations}).
 */
class HintingJdbcCatalog extends JdbcCatalog {
  HintingJdbcCatalog(Function<Map<String, String>, FileIO> io, Function<Map<String, String>, JdbcClientPool> pool) {
    super(io, pool, true);
  }

  /** Also deletes the {@link VersionHint} files of a table dropped with its files (Iceberg's purge leaves them). */
  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    TableOperations ops = purge ? newTableOps(identifier) : null;
    TableMetadata last = null;
    if (ops != null) {
      try {
        last = ops.current();
      } catch (RuntimeException e) {
        last = null; // no such table, or unreadable: the drop below says which
      }
    }
    boolean dropped = super.dropTable(identifier, purge);
    if (dropped && last != null) {
      VersionHint.deleteAll(ops.io(), last);
    }
    return dropped;
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new HintingTableOperations(super.newTableOps(identifier), identifier.toString());
  }
}
