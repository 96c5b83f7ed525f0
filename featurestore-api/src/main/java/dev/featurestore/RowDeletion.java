package dev.featurestore;

import java.util.Collection;
import org.apache.iceberg.expressions.Expression;

/**
 * A pending row-level delete: selects rows of the current snapshot by a filter or by key values
 * and marks them deleted by position in ONE atomic commit (Iceberg's {@code RowDelta}, validated
 * from the snapshot it planned on). Never equality deletes: on a format-3 table the positions are
 * written as deletion vectors, on format 2 as one file-scoped position-delete file per data file;
 * a data file that already had deletes keeps one delete file (the old one is merged and replaced
 * in the same commit). A data file whose live rows all match is removed from the snapshot instead.
 *
 * <pre>{@code
 * DeleteResult r = table.deleteRows().where(Expressions.lessThan("event_time", cutoff)).execute();
 * DeleteResult preview = table.deleteRows().keys("entity_id", List.of(42L, 43L)).dryRun();
 * ForgetResult gone = table.deleteRows().keys("entity_id", List.of(42L)).forget();
 * }</pre>
 *
 * <p>Rows are selected exactly as {@link TimeTravelQuery#filter} selects them for a filter (IEEE
 * NaN comparisons, SQL nulls, uuids ordered as unsigned bytes) and as {@link PointLookup} finds
 * them for keys (a key equals a row's value; bloom filters and partitions prune the files, so
 * deleting one entity reads only the files that may hold it). Every reader of the library and
 * any Iceberg reader sees the deletes.
 *
 * <p>Conflicts: a concurrent commit that deletes rows of, rewrites (compacts) or removes a data file
 * this delete touches fails it with {@link CommitConflictException}; the table is left as it was
 * and the delete files written for it are removed. Retry the whole delete. If the catalog's answer
 * is lost, {@link CommitStateUnknownException} is thrown and nothing is retried or removed: check
 * the table's snapshots before retrying. Concurrent appends do not conflict (rows appended after
 * planning are not deleted).
 *
 * <p>Single-use and not thread-safe: ending it twice ({@code execute()}, {@code dryRun()} or
 * {@code forget()}) throws {@link InvalidStateException}.
 */
public interface RowDeletion {
  /**
   * Deletes the rows matching {@code filter} (several calls combine with AND). {@code
   * Expressions.alwaysTrue()} deletes every row.
   *
   * @throws InvalidArgumentException if {@code filter} is null, or keys were given too
   */
  RowDeletion where(Expression filter);

  /**
   * Deletes the rows whose {@code column} equals one of {@code keys} (values of the column's Java
   * type, as {@link PointLookup#get} takes them).
   *
   * @throws InvalidArgumentException if an argument or a key is null, {@code keys} is empty, a
   *     key is NaN, the column does not exist or is not primitive, or a filter or keys were given before
   */
  RowDeletion keys(String column, Collection<?> keys);

  /**
   * Finds the rows to delete and returns what {@link #execute()} would do on the current snapshot,
   * per data file; writes and commits nothing.
   *
   * @throws InvalidArgumentException if nothing was selected, a column is unknown or a key has the wrong type
   */
  DeleteResult dryRun();

  /**
   * Writes the delete files and commits them as one snapshot. A table without a snapshot, or a
   * selection that matches no row, commits nothing (the result's snapshot id is empty).
   *
   * @throws InvalidArgumentException if nothing was selected, a column is unknown or a key has the wrong type
   * @throws CommitConflictException if a concurrent commit touched the same data files
   * @throws CommitStateUnknownException if the commit's outcome is unknown
   */
  DeleteResult execute();

  /**
   * Forgets the selected rows: removes them from the current snapshot by rewriting each data file
   * that holds one (a copy without them; the rows' bytes are not left masked in a live file), then
   * expires every snapshot whose files still hold one of them, which deletes the files no snapshot
   * needs any more. Snapshots that a tag or a branch points at are never expired: the result names
   * those refs, and their files stay until the ref is moved or removed and {@code forget()} (or an
   * expiry) runs again.
   *
   * <p>Guarantees when it returns: no row matching the selection is readable at the current
   * snapshot or at any snapshot that remains, except those the named refs point at; time travel to
   * an expired snapshot fails; no data file reachable from a remaining snapshot other than those
   * refs contains the rows. Out of scope: copies outside the table's metadata (object versions kept
   * by a bucket's versioning or lifecycle rules, backups, exports, caches of other engines), and
   * equality-delete files other engines wrote (they may hold key values).
   *
   * @throws InvalidArgumentException as {@link #execute()}
   * @throws CommitConflictException if a concurrent commit touched the same data files (nothing was
   *     changed), or a concurrent commit made the expiry fail (the rows are already gone from the
   *     current snapshot; call {@code forget()} again)
   * @throws CommitStateUnknownException if the commit's outcome is unknown
   */
  ForgetResult forget();
}
