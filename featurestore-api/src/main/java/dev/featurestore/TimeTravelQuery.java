package dev.featurestore;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;

/**
 * A read of one version of a table. Immutable: every refinement returns a new query, so a base
 * query can be shared between threads and refined differently.
 *
 * <pre>{@code
 * TimeTravelQuery base = table.query().select("entity_id", "feature_a");
 * TimeTravelQuery lastWeek = base.asOf(Instant.parse("2026-11-25T00:00:00Z")); // base unchanged
 * try (QueryResult result = lastWeek.filter(Expressions.greaterThan("feature_a", 0.5)).execute()) {
 *   for (Row row : result) { ... }
 *   System.out.println(result.scanStats());
 * }
 * }</pre>
 *
 * <p>The version is chosen by the last of {@link #current()}, {@link #asOfSnapshot(long)},
 * {@link #asOf(Instant)} and {@link #atRef(String)}. Columns are those of the chosen snapshot's
 * schema, so renamed and dropped columns read as they were then. Filters use Iceberg expressions
 * ({@code org.apache.iceberg.expressions.Expressions}); they prune files by partition and column
 * statistics, then filter rows exactly.
 */
public interface TimeTravelQuery {
  /** Reads the current snapshot (the default). */
  TimeTravelQuery current();

  /** Reads a snapshot by id. */
  TimeTravelQuery asOfSnapshot(long snapshotId);

  /** Reads the snapshot that was current at {@code time}. */
  TimeTravelQuery asOf(Instant time);

  /** Reads the snapshot a tag or branch points to. */
  TimeTravelQuery atRef(String ref);

  /** Projects these columns (of the chosen snapshot's schema), in this order. */
  TimeTravelQuery select(String... columns);

  /** Adds a row filter, combined with earlier filters by AND. */
  TimeTravelQuery filter(Expression filter);

  /** The table this query reads. */
  TableId table();

  /** The version this query names (not yet resolved: a time or a ref resolves when the query runs). */
  ReadVersion version();

  /** The selected columns in the order given, or empty for every column of the version's schema. */
  Optional<List<String>> columns();

  /** The row filter (all filters combined by AND; {@code alwaysTrue()} when none). */
  Expression filter();

  /**
   * Escape hatch to the underlying {@code org.apache.iceberg.Table} this query reads, outside the
   * compatibility promise (as {@link FeatureTable#unwrap}); other readers, such as the SQL adapter,
   * plan the same version through it.
   *
   * @throws InvalidArgumentException if the query holds nothing of that type
   */
  <T> T unwrap(Class<T> type);

  /** The schema of the rows this query returns. Resolves the version. */
  Schema schema();

  /**
   * Plans and runs the query. The result streams rows; close it.
   *
   * @throws SnapshotNotFoundException if the version does not resolve
   * @throws NotFoundException if a selected column does not exist in that version
   */
  QueryResult execute();

  /** Counts the matching rows. */
  long count();

  /**
   * The rows that changed from version {@code from} to this query's version: added and removed,
   * with this query's columns and filter applied to both sides. Counts first, rows on demand; see
   * {@link RowDiff}. With {@code from} the last snapshot a downstream job processed, this is the
   * incremental read "what changed since": overwrites and deletes are included, not only appends.
   *
   * <pre>{@code
   * RowDiff changes = table.query().diff(ReadVersion.snapshot(lastProcessed));
   * }</pre>
   *
   * @throws SnapshotNotFoundException if either version does not resolve
   * @throws NotFoundException if a selected column does not exist in the diff's schema
   */
  RowDiff diff(ReadVersion from);

  /** {@link #diff(ReadVersion)} from a snapshot id. */
  default RowDiff diff(long fromSnapshotId) {
    return diff(ReadVersion.snapshot(fromSnapshotId));
  }

  /**
   * Writes the rows this query returns to a local Parquet file, with the lineage (table,
   * snapshot id, filter, columns) in the file's key-value metadata under {@code
   * featurestore.lineage}. Replaces nothing: fails if the file exists.
   */
  ExportResult exportParquet(Path file);

  /**
   * Writes the rows this query returns as Parquet to {@code exports/<name>.parquet} in the store's
   * bucket (".parquet" is not doubled when {@code name} has it), with the same lineage in the
   * footer as {@link #exportParquet(Path)}. The file is written to a local temporary file, then
   * uploaded (multipart when large); a failed export leaves no object.
   *
   * @throws ValidationException if the store is not on object storage
   * @throws AlreadyExistsException if the object exists (checked before uploading; B2 has no
   *     conditional writes, so a concurrent exporter of the same name can still race)
   * @throws IllegalArgumentException if the name is not a usable key
   */
  ExportResult exportToBucket(String name);
}
