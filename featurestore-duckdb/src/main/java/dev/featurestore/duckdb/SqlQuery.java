package dev.featurestore.duckdb;

import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TimeTravelQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * SQL over named table versions. Immutable: every refinement returns a new query.
 *
 * <p>Several tables, or several versions of one table, can appear in one query, each under its
 * own name (for example {@code before} and {@code after} to compare two snapshots).
 */
public interface SqlQuery {
  /**
   * Makes the version, columns and filter {@code query} names readable as {@code name} (a plain SQL
   * identifier, case-insensitive), for example {@code table("ev", events.query().asOfSnapshot(id)
   * .select("entity_id", "feature_a"))}. The version is resolved when the SQL runs, by the same
   * resolver as {@link TimeTravelQuery#execute()}; selected columns are top-level columns.
   *
   * @throws dev.featurestore.InvalidArgumentException if the name is not a plain identifier, starts
   *     with {@code __} or is already given
   */
  SqlQuery table(String name, TimeTravelQuery query);

  /** Makes the current version of {@code table} readable as {@code name}. */
  default SqlQuery table(String name, FeatureTable table) {
    return table(name, InvalidArgumentException.requireNonNull(table, "name table", "table").query());
  }

  /**
   * As {@link #table(String, TimeTravelQuery)}.
   *
   * @deprecated use {@link #table(String, TimeTravelQuery)}; removed in the next release
   */
  @Deprecated
  default SqlQuery table(String name, TableVersion version) {
    return table(name, InvalidArgumentException.requireNonNull(version, "name table", "version").toQuery());
  }

  /** Cancels the query when it runs longer than {@code timeout} (planning and fetching included). */
  SqlQuery timeout(Duration timeout);

  /**
   * Plans the tables, fetches remote files into the cache and runs the SQL. Close the result.
   *
   * @throws SqlRefusedException if the SQL is not a single SELECT over the given tables
   * @throws InvalidSqlException if DuckDB cannot parse or bind the SQL
   * @throws dev.featurestore.SnapshotNotFoundException if a version does not resolve
   * @throws QueryCancelledException if the query timed out or was cancelled
   */
  SqlResult execute();

  /** Runs the query and reads every row as a map; convenient for small results. */
  default List<Map<String, Object>> toList() {
    try (SqlResult result = execute()) {
      return result.toList();
    }
  }

  /**
   * Runs the query and writes its rows to a local Parquet file (zstd), which must not exist. The
   * lineage (the SQL and each table's id, snapshot and filter) is stored in the file's key-value
   * metadata under {@code featurestore.lineage}.
   *
   * @throws dev.featurestore.AlreadyExistsException if the file exists
   */
  SqlExport exportParquet(Path file);

  /**
   * Runs the query and writes its rows as Parquet to {@code exports/<name>.parquet} in the store's
   * bucket, with the same lineage in the footer as {@link #exportParquet(Path)}. The file is
   * written in the engine's work directory first, then uploaded (multipart when large) and the
   * local copy deleted; a failed export leaves no object.
   *
   * @throws dev.featurestore.ValidationException if the store is not on object storage
   * @throws dev.featurestore.AlreadyExistsException if the object exists (checked before writing;
   *     B2 has no conditional writes, so a concurrent exporter of the same name can still race)
   * @throws dev.featurestore.InvalidArgumentException if the name is not a valid object key
   */
  SqlExport exportToBucket(String name);
}
