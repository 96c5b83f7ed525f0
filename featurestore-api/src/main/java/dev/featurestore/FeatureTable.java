package dev.featurestore;

import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * A versioned feature table: an Apache Iceberg table that a {@link FeatureStore} manages. Every
 * write is one atomic commit that creates a snapshot; every snapshot stays readable until it is
 * expired.
 *
 * <pre>{@code
 * FeatureTable table = store.table("features.feature_events");
 * IngestResult added = table.ingest().csv(Path.of("events.csv")).commit();
 * table.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean").commit();
 * try (QueryResult rows = table.query().asOfSnapshot(added.snapshotId()).execute()) { ... }
 * }</pre>
 *
 * <p>Thread safety: safe for concurrent use. Metadata accessors return the state seen at the last
 * refresh; writes and queries refresh first.
 */
public interface FeatureTable {
  TableId id();

  /** The current schema. */
  Schema schema();

  /** The current partition spec. */
  PartitionSpec spec();

  /** The table's properties. */
  Map<String, String> properties();

  /** The table's base location (a URI or path). */
  String location();

  /** The Iceberg format version (2 or 3). */
  int formatVersion();

  /** Starts an ingest: pick one source, set options, then {@code commit()}. */
  Ingest ingest();

  /** Appends rows given as column-name to value maps, in one commit. */
  default IngestResult append(Iterable<? extends Map<String, ?>> rows) {
    return ingest().rows(rows).commit();
  }

  /** Starts a schema change: preview with {@code apply()}, land with {@code commit()}. */
  SchemaEvolution evolveSchema();

  /** Snapshot history, rollback and refs. */
  SnapshotManager snapshots();

  /** A query of the current snapshot, with every column; refine it with its methods. */
  TimeTravelQuery query();

  /** Snapshot expiry, orphan-file removal, compaction, manifest rewrites and maintenance plans. */
  TableMaintenance maintenance();

  /** Rows, files, bytes, write amplification and the rows-per-snapshot series. */
  TableStats stats();

  /** Reloads the table's metadata from the catalog. */
  void refresh();

  /**
   * Escape hatch to the underlying {@code org.apache.iceberg.Table}, outside the compatibility
   * promise. Changes made through it bypass this library's checks.
   *
   * @throws IllegalArgumentException if this table holds nothing of that type
   */
  <T> T unwrap(Class<T> type);
}
