package dev.featurestore.core.catalog;

import java.lang.reflect.Method;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a commit of the store's own catalog landed, Iceberg's table operations forget their
 * metadata and, on the next use, read back and parse the {@code metadata.json} the commit just
 * wrote (a stream's commit spent about a tenth of its time there, plus reading the new snapshot's
 * manifest list again, which the parsed snapshot has not cached). The committed metadata is known
 * exactly: the metadata the commit wrote, with the location it was written to. This installs that
 * metadata as the operations' current one, as a refresh right after the commit would have found
 * it; the next {@code refresh()} asks the catalog as always and sees any later commit of another
 * writer.
 *
 * <p>The metadata is rebuilt with Iceberg's public builder (no pending changes, the new
 * location); the operations' refresh from a known location with a loader is protected, so it is
 * called by reflection. A subclass cannot reach it: Iceberg's {@code JdbcTableOperations} is a
 * package-private class, so extending it would take a class in Iceberg's own package (a split
 * package), and operations of our own around it would have to rewrite its SQL and version
 * counting. If the method is missing (another Iceberg version) or the metadata cannot be built,
 * the operations read the file back as before ({@code CommittedMetadataTest} then fails, so an
 * upgrade does not lose the install silently).
 */
final class CommittedMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedMetadata.class);
  private static final Method REFRESH_FROM;

  static {
    Method refresh = null;
    try {
      refresh = BaseMetastoreTableOperations.class.getDeclaredMethod("refreshFromMetadataLocation", String.class,
          Predicate.class, int.class, Function.class);
      refresh.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("Committed table metadata is read back after each commit (Iceberg internals not found): {}", e.toString());
      refresh = null;
    }
    REFRESH_FROM = refresh;
  }

  private CommittedMetadata() {}

  /** {@code metadata} as a reader of the file at {@code location} would build it, or null if it cannot be built. */
  static TableMetadata at(TableMetadata metadata, String location) {
    try {
      return TableMetadata.buildFrom(metadata).discardChanges().withMetadataLocation(location).build();
    } catch (RuntimeException e) {
      LOG.debug("Cannot build committed table metadata of {} (read back instead): {}", location, e.toString());
      return null;
    }
  }

  /**
   * Makes {@code committed} (at {@code location}) the current metadata of {@code ops} without
   * reading the file; returns false (and changes nothing) if {@code ops} is not Iceberg's
   * metastore operations or the install is not available.
   */
  static boolean install(TableOperations ops, String location, TableMetadata committed) {
    if (REFRESH_FROM == null || committed == null || !(ops instanceof BaseMetastoreTableOperations)) {
      return false;
    }
    try {
      Function<String, TableMetadata> loader = ignored -> committed;
      REFRESH_FROM.invoke(ops, location, null, 0, loader);
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("Cannot install committed table metadata {} (read back instead): {}", location, e.toString());
      return false;
    }
  }
}
