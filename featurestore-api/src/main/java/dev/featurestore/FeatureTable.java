package dev.featurestore;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;

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

  /** Starts an ingest: pick one source, set options, then {@code commit()} ({@code apply()} previews). */
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

  /**
   * Starts a partition-spec change: preview with {@code apply()}, land with {@code commit()}. Files
   * already written keep their spec.
   */
  PartitionEvolution evolvePartitionSpec();

  /**
   * The partition path (as in a data file's location, {@code event_time_day=2026-01-01/entity_id_bucket=3})
   * that a row with these column values lands in under the current spec; empty if unpartitioned.
   * Values convert as in an ingest (numbers widen; timestamps from {@code java.time} values or ISO
   * strings); columns the spec does not use are ignored, missing ones are null.
   *
   * @throws IllegalArgumentException if a value does not convert to its column's type
   */
  String partitionPath(Map<String, ?> row);

  /**
   * The partition path of partition values given in the current spec's field order, as Iceberg
   * stores them (day: days since 1970-01-01 or a {@code LocalDate}; hour: hours since epoch; month
   * and year: months and years since 1970; bucket: the bucket number; identity: the column's value).
   *
   * @throws InvalidArgumentException if the count or a type does not match the spec
   */
  String partitionPathOf(List<?> partitionValues);

  /**
   * Explains, file by file, which data files of the current snapshot a filter keeps and why the
   * others are dropped (partition values or column statistics). The kept files are exactly those
   * a query with this filter reads.
   */
  PruningReport explainPruning(Expression filter);

  /** As {@link #explainPruning(Expression)} for a given snapshot. */
  PruningReport explainPruning(Expression filter, long snapshotId);

  /**
   * As {@link #explainPruning(Expression)} for a list of data files only (locations as in a {@link
   * PruningReport}, a {@link SnapshotDiff} or a {@link RowDiff}): a decision per file, in the order
   * given, from the current snapshot's metadata (partition values and column statistics), without
   * reading a file. The decisions are those a scan would make.
   *
   * @throws NotFoundException if a location is not a live data file of the current snapshot
   * @throws InvalidArgumentException if the list is empty or holds a location twice
   */
  PruningReport explainPruning(Expression filter, List<String> dataFiles);

  /**
   * Reads the Parquet bloom filters of one data file (any file of the table's history: locations as
   * in a {@link PruningReport} or {@link SnapshotDiff}), per column and row group, from its footer.
   *
   * @throws NotFoundException if there is no file at {@code dataFile}
   * @throws StorageException if the file cannot be read
   */
  DataFileBloomFilters readBloomFilters(String dataFile);

  /** The columns that get Parquet bloom filters in new data files, by name. */
  default Map<String, BloomFilterColumn> bloomFilterColumns() {
    return BloomFilterColumn.fromProperties(properties());
  }

  /** Starts a change of the bloom-filter columns (it affects files written afterwards). */
  BloomFilterUpdate updateBloomFilters();

  /**
   * A point lookup by {@code keyColumn}: the latest row of an entity, reading only the row groups
   * that can hold it.
   *
   * @throws InvalidArgumentException if the column does not exist or is not primitive
   */
  PointLookup lookup(String keyColumn);

  /**
   * A row-level delete of the current snapshot, by filter or by keys, written as deletion vectors
   * (format 3) or position deletes (format 2); {@link RowDeletion#forget()} also expires the
   * snapshots that still hold the rows. See {@link RowDeletion}.
   */
  RowDeletion deleteRows();

  /**
   * Starts a hot/cold tiering run: moves data files older than a threshold to the store's cold
   * storage in atomic commits; {@code dryRun()} reports, {@code execute()} moves.
   *
   * @throws ValidationException on {@code execute()}/{@code dryRun()} if the store has no cold storage
   */
  Tiering tiering();

  /**
   * Reads one of the table's metadata tables (snapshots, history, refs, schemas, partitions, files,
   * manifests, the operations log) as of the current snapshot, after a refresh. The rows carry the
   * metadata table's own schema ({@link QueryResult#schema()}); {@link QueryResult#snapshotId()} is the
   * current snapshot (-1 if none). Iterate once, then close.
   *
   * <pre>{@code
   * try (QueryResult files = table.metadata(MetadataTable.DATA_FILES)) {
   *   files.forEach(f -> System.out.println(f.get("file_path") + " " + f.get("record_count")));
   * }
   * }</pre>
   *
   * @throws InvalidArgumentException if {@code metadataTable} is null
   * @throws StorageException if manifests or footers cannot be read
   */
  QueryResult metadata(MetadataTable metadataTable);

  /**
   * True for a table opened with {@link FeatureStore#openReadOnly(String)}: every write
   * ({@link #ingest()}, {@link #evolveSchema()}, {@link #evolvePartitionSpec()},
   * {@link #updateBloomFilters()}, {@link #maintenance()}, {@link #tiering()} and the ref and
   * rollback methods of {@link #snapshots()}) throws {@link InvalidStateException}.
   */
  default boolean isReadOnly() {
    return false;
  }

  /** Reloads the table's metadata from the catalog. */
  void refresh();

  /**
   * Escape hatch to the underlying {@code org.apache.iceberg.Table}, outside the compatibility
   * promise. Changes made through it bypass this library's checks.
   *
   * @throws InvalidArgumentException if this table holds nothing of that type
   */
  <T> T unwrap(Class<T> type);
}
