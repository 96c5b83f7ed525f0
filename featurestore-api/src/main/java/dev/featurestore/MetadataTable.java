package dev.featurestore;

import java.util.Locale;

/**
 * The metadata tables of a feature table, read with {@link FeatureTable#metadata(MetadataTable)}
 * and, in the DuckDB adapter, by name in SQL as {@code "<namespace>.<table>$<name>"} (for example
 * {@code SELECT * FROM "features.events$files"}), joinable with data. Except for {@link #SCHEMAS} and
 * {@link #OPERATIONS}, each is Iceberg's metadata table of the same name ({@code MetadataTableType}),
 * with the same columns, rows and numbers, in Iceberg's generic Java types (timestamps with zone as
 * {@code OffsetDateTime}, nested structs as records, maps and lists as {@code Map} and {@code List}).
 * The file tables ({@link #FILES}, {@link #DATA_FILES}, {@link #DELETE_FILES}) add one column,
 * {@code bloom_filter_columns}.
 */
public enum MetadataTable {
  /** One row per snapshot: {@code committed_at, snapshot_id, parent_id, operation, manifest_list, summary}. */
  SNAPSHOTS,
  /** The table's history: {@code made_current_at, snapshot_id, parent_id, is_current_ancestor}. */
  HISTORY,
  /** Branches and tags: {@code name, type, snapshot_id, max_reference_age_in_ms, min_snapshots_to_keep, max_snapshot_age_in_ms}. */
  REFS,
  /**
   * Every schema version, one row per field (nested fields too): {@code schema_id, is_current,
   * field_id, parent_field_id, name} (the full dotted name), {@code type, required, doc}. Not an
   * Iceberg metadata table; the same facts as the {@code schemas} list of the metadata file.
   */
  SCHEMAS,
  /** One row per partition of the current snapshot: record, file and delete counts, sizes, last update. */
  PARTITIONS,
  /**
   * The data and delete files of the current snapshot: {@code content, file_path, file_format, spec_id,
   * partition, record_count, file_size_in_bytes}, column sizes, value, null and NaN counts, bounds (raw
   * in {@code lower_bounds}/{@code upper_bounds}, typed in {@code readable_metrics}), split offsets,
   * equality ids, sort order, and {@code bloom_filter_columns}: the columns the file holds Parquet
   * bloom filters for (read from each Parquet footer, one ranged read per file; empty for other
   * formats and delete files).
   */
  FILES,
  /** As {@link #FILES}, data files only. */
  DATA_FILES,
  /** As {@link #FILES}, delete files only (position, equality deletes and deletion vectors). */
  DELETE_FILES,
  /** The manifests of the current snapshot, with their file counts and partition summaries. */
  MANIFESTS,
  /**
   * The store's operations log for this table: {@code recorded_at, actor, operation, table_name,
   * snapshot_id, details} (see {@link FeatureStore#operations()} for the store-wide log).
   */
  OPERATIONS;

  /** The name in SQL and in messages: lower case, as {@code files} or {@code data_files}. */
  public String sqlName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The metadata table named {@code name} (case-insensitive, as {@link #sqlName()}).
   *
   * @throws InvalidArgumentException if no metadata table has that name
   */
  public static MetadataTable fromName(String name) {
    InvalidArgumentException.requireNonNull(name, "find metadata table", "name");
    for (MetadataTable table : values()) {
      if (table.sqlName().equalsIgnoreCase(name)) {
        return table;
      }
    }
    throw new InvalidArgumentException("Cannot find metadata table: unknown name: '" + FeatureStoreException.printable(name) + "'");
  }
}
