package dev.featurestore;

import java.util.List;
import org.apache.iceberg.Schema;

/**
 * The rows added and removed between two snapshots of a table: the multiset difference of a full
 * read of each, with every kind of change applied (appends, overwrites, position deletes, deletion
 * vectors and equality deletes). A compaction or any other rewrite that keeps the rows is an
 * empty diff. Made by {@link TimeTravelQuery#diff(ReadVersion)}: the query's version is the newer
 * side ({@code to}), its columns and filter apply to both sides.
 *
 * <pre>{@code
 * // an incremental read: what changed since the snapshot the last run processed
 * RowDiff changes = table.query().diff(lastProcessed);
 * System.out.printf("+%d -%d%n", changes.addedCount(), changes.removedCount());
 * try (QueryResult added = changes.added()) { added.forEach(sink::upsert); }
 * try (QueryResult removed = changes.removed()) { removed.forEach(sink::delete); }
 * lastProcessed = changes.toSnapshotId();
 * }</pre>
 *
 * <p>Only the data files whose live rows differ are read: a data file live in both snapshots with
 * the same delete files is skipped without opening it. Both sides are read through {@link
 * #schema()}, the newer of the two snapshots' schemas, so renamed columns keep their data, columns
 * added later read as their default (or null) on both sides, and widened columns compare widened.
 *
 * <p>Counts come first: {@link #addedCount()} and {@link #removedCount()} read the differing files
 * once and keep only a 16-byte hash per row (rows that appear on both sides cancel by hash), never
 * the rows. {@link #added()} and {@link #removed()} stream the rows on demand (each call reads the
 * files again); each may be called more than once. Thread-safe; each {@link Rows} is single-threaded.
 */
public interface RowDiff {
  /** The older side: the snapshot the changes are counted from, or -1 for an empty table. */
  long fromSnapshotId();

  /** The newer side: the snapshot the changes lead to (store it for the next incremental read), or -1. */
  long toSnapshotId();

  /** The columns of the rows on both sides. */
  Schema schema();

  /**
   * The data files read to compute the diff: live in only one of the snapshots, or live in both
   * with different delete files. Sorted.
   */
  List<String> changedDataFiles();

  /**
   * Rows in {@code to} and not in {@code from} (counted with multiplicity). Reads the changed files
   * on the first call of this or {@link #removedCount()}.
   */
  long addedCount();

  /** Rows in {@code from} and not in {@code to} (counted with multiplicity). */
  long removedCount();

  /**
   * The added rows, streamed, read from {@link #toSnapshotId()}; close the result. Its scan stats
   * count the changed files of that side.
   */
  QueryResult added();

  /** The removed rows, streamed, read from {@link #fromSnapshotId()}; close the result. */
  QueryResult removed();
}
