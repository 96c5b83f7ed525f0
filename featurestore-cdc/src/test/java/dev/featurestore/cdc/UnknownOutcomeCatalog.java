package dev.featurestore.cdc;

import dev.featurestore.core.catalog.ForwardingTableOperations;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded SQLite catalog, except that the next commit can be made to end in
 * {@link CommitStateUnknownException}: {@code LANDED} after the catalog row was updated (the
 * commit is in the table), {@code LOST} before (it is not).
 */
final class UnknownOutcomeCatalog extends JdbcCatalog {
  enum Next { NORMAL, LANDED, LOST }

  final AtomicReference<Next> next = new AtomicReference<>(Next.NORMAL);

  UnknownOutcomeCatalog(FileIO io, Path root) {
    super(ignored -> io, null, true);
    try {
      java.nio.file.Files.createDirectories(root.resolve("warehouse"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + root.resolve("catalog.db").toAbsolutePath());
    props.put(CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toAbsolutePath().toUri().toString());
    props.put("jdbc.schema-version", "V1");
    props.put("jdbc.journal_mode", "WAL");
    props.put("jdbc.busy_timeout", "5000");
    initialize("featurestore", props);
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier id) {
    TableOperations ops = super.newTableOps(id);
    return new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        Next outcome = next.getAndSet(Next.NORMAL);
        if (outcome == Next.LOST) {
          throw new CommitStateUnknownException(new java.sql.SQLException("injected: connection reset before the update"));
        }
        super.commit(base, metadata);
        if (outcome == Next.LANDED) {
          throw new CommitStateUnknownException(new java.sql.SQLException("injected: connection reset after the update"));
        }
      }
    };
  }
}
