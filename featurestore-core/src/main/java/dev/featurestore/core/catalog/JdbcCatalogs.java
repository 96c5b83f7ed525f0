package dev.featurestore.core.catalog;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening Iceberg's {@link JdbcCatalog} when other processes may be opening the same new catalog
 * database at the same moment. Iceberg's initialisation checks, then creates, its tables and then
 * migrates them to schema V1 ({@code ALTER TABLE ... ADD COLUMN}); the loser of a race fails with
 * "already exists", "duplicate column", a constraint violation or a busy database, although the
 * winner's catalog is exactly what it was about to make. Such a failure is retried a bounded
 * number of times, on a fresh connection pool; the retry finds the winner's tables and uses them.
 * Initialisation commits nothing to any table, so retrying it is always safe.
 */
final class JdbcCatalogs {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcCatalogs.class);
  static final int INIT_ATTEMPTS = 8;

  private JdbcCatalogs() {}

  /** A {@link JdbcCatalog} named {@code name}, initialised with {@code props}, its tables written through {@code io}. */
  static JdbcCatalog open(String name, Map<String, String> props, FileIO io) {
    for (int attempt = 1; ; attempt++) {
      AtomicReference<JdbcClientPool> pool = new AtomicReference<>();
      // the table operations see a recorder of the metadata files they write (see HintingTableOperations)
      JdbcCatalog catalog = new HintingJdbcCatalog(ignored -> new MetadataWriteRecorder(io), p -> {
        JdbcClientPool created = new JdbcClientPool(p.get(org.apache.iceberg.CatalogProperties.URI), p);
        pool.set(created);
        return created;
      });
      try {
        catalog.initialize(name, props);
        return catalog;
      } catch (RuntimeException e) {
        if (pool.get() != null) {
          pool.get().close(); // the catalog itself has nothing else to close before initialize returned
        }
        if (attempt >= INIT_ATTEMPTS || !raceLost(e)) {
          throw e;
        }
        LOG.debug("Catalog initialisation raced another process (attempt {}): {}", attempt, SharedCatalogs.rootMessage(e));
        backOff(attempt);
      }
    }
  }

  /**
   * True for the failures of a process that lost the race to create or migrate the catalog
   * tables: SQLite busy or locked (result codes 5, 6), a table, column or row that appeared
   * meanwhile (SQLite's messages; PostgreSQL's SQL states 42P07, 42701, 23505).
   */
  static boolean raceLost(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof SQLException sql) {
        int code = sql.getErrorCode() & 0xff;
        String state = String.valueOf(sql.getSQLState());
        String message = String.valueOf(sql.getMessage()).toLowerCase(Locale.ROOT);
        if (code == 5 || code == 6 || state.equals("42P07") || state.equals("42701") || state.equals("23505")
            || message.contains("sqlite_busy") || message.contains("sqlite_locked")
            || message.contains("already exists") || message.contains("duplicate column")
            || message.contains("constraint failed")) {
          return true;
        }
      }
    }
    return false;
  }

  private static void backOff(int attempt) {
    try {
      Thread.sleep(10L * attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot open catalog: interrupted", e);
    }
  }
}
