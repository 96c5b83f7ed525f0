package dev.featurestore.core.catalog;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.util.SerializableSupplier;
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
 * <p>Iceberg offers neither step publicly, so both go through reflection (the metadata's
 * constructor, which the parser also builds it with, and the operations' refresh from a known
 * location with a loader). If either is missing (another Iceberg version), the operations read the
 * file back as before.
 */
final class CommittedMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedMetadata.class);
  private static final Constructor<TableMetadata> CONSTRUCTOR;
  private static final Method REFRESH_FROM;

  static {
    Constructor<TableMetadata> constructor = null;
    Method refresh = null;
    try {
      constructor = TableMetadata.class.getDeclaredConstructor(String.class, int.class, String.class, String.class,
          long.class, long.class, int.class, int.class, List.class, int.class, List.class, int.class, int.class,
          List.class, Map.class, long.class, List.class, SerializableSupplier.class, List.class, List.class, Map.class,
          List.class, List.class, long.class, List.class, List.class);
      constructor.setAccessible(true);
      refresh = BaseMetastoreTableOperations.class.getDeclaredMethod("refreshFromMetadataLocation", String.class,
          Predicate.class, int.class, Function.class);
      refresh.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("Committed table metadata is read back after each commit (Iceberg internals not found): {}", e.toString());
      constructor = null;
      refresh = null;
    }
    CONSTRUCTOR = constructor;
    REFRESH_FROM = refresh;
  }

  private CommittedMetadata() {}

  /** {@code metadata} as a reader of the file at {@code location} would build it, or null if it cannot be built. */
  static TableMetadata at(TableMetadata metadata, String location) {
    if (CONSTRUCTOR == null) {
      return null;
    }
    try {
      // the arguments TableMetadataParser.fromJson passes: what the file holds, no pending changes
      return CONSTRUCTOR.newInstance(location, metadata.formatVersion(), metadata.uuid(), metadata.location(),
          metadata.lastSequenceNumber(), metadata.lastUpdatedMillis(), metadata.lastColumnId(),
          metadata.currentSchemaId(), metadata.schemas(), metadata.defaultSpecId(), metadata.specs(),
          metadata.lastAssignedPartitionId(), metadata.defaultSortOrderId(), metadata.sortOrders(),
          metadata.properties(), currentSnapshotId(metadata), metadata.snapshots(), null, metadata.snapshotLog(),
          metadata.previousFiles(), metadata.refs(), metadata.statisticsFiles(), metadata.partitionStatisticsFiles(),
          metadata.formatVersion() >= 3 ? metadata.nextRowId() : 0L, metadata.encryptionKeys(), List.of());
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("Cannot build committed table metadata of {} (read back instead): {}", location, e.toString());
      return null;
    }
  }

  private static long currentSnapshotId(TableMetadata metadata) {
    return metadata.currentSnapshot() == null ? -1L : metadata.currentSnapshot().snapshotId();
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
