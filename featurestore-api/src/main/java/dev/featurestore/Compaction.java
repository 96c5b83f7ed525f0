package dev.featurestore;

import org.apache.iceberg.SortOrder;
import org.apache.iceberg.expressions.Expression;

/**
 * A pending compaction: bin-packs the small data files of each partition of the current snapshot
 * into files of the target size, applying delete files while reading, and replaces them in ONE
 * atomic commit (Iceberg's {@code RewriteFiles}, validated from the snapshot it planned on).
 *
 * <p>Concurrent appends are never lost (they do not conflict with a rewrite). A concurrent commit
 * that deletes or overwrites rows of the files being rewritten conflicts: the compaction deletes
 * the files it wrote, throws {@link CommitConflictException} and leaves the table unchanged.
 *
 * <pre>{@code
 * CompactionResult r = table.maintenance().compact().targetFileSizeBytes(128L << 20).execute();
 * }</pre>
 *
 * <p>Single-use: a second {@code execute()} throws {@link InvalidStateException} ({@code Cannot
 * execute compaction of table <id>: already executed}).
 */
public interface Compaction {
  /**
   * Target size of the files written; default the table's {@code write.target-file-size-bytes}.
   *
   * @throws IllegalArgumentException if not positive
   */
  Compaction targetFileSizeBytes(long bytes);

  /**
   * Files smaller than this are rewritten (default 75% of the target); a larger file only when
   * its deletes cross {@link #deletedRowsThreshold}.
   *
   * @throws IllegalArgumentException if not positive
   */
  Compaction smallFileThresholdBytes(long bytes);

  /**
   * A file at or above the small-file threshold (with {@link #sizeTiers}: any file not merged) that
   * has deletes is rewritten only once its deleted
   * rows reach this fraction of its rows (default {@value MaintenancePolicy#DEFAULT_DELETED_ROWS_THRESHOLD}):
   * a large file with a few deleted rows keeps its deletion vector (or position-delete file)
   * instead of being rewritten whole, so the work of a compaction follows what changed, not the
   * size of the table. {@code 0} rewrites every file with deletes. A file whose deletes cannot be
   * counted per file (equality deletes, position-delete files covering several data files) counts
   * as past the threshold.
   *
   * @throws IllegalArgumentException ({@link InvalidArgumentException}) if not between 0 and 1
   */
  Compaction deletedRowsThreshold(double fraction);

  /**
   * A partition is rewritten only if it has at least this many candidate files (default 2), or a
   * candidate with deletes.
   *
   * @throws IllegalArgumentException if below 1
   */
  Compaction minInputFiles(int count);

  /**
   * Merges only files of similar size, so that the cost of a compaction follows the data written
   * since the last one, not the size of the table (what {@link MaintenancePlan}s and background
   * maintenance do by default, see {@link MaintenancePolicy#compactionSizeRatio()}). Without it,
   * every file below the small-file threshold is rewritten: a full compaction, the default of
   * {@code compact()}.
   *
   * <p>The small files of each partition, smallest first, form size tiers: a file joins the tier of
   * the files before it when it is at most {@code sizeRatio} times their total size; a larger
   * file starts the next tier. A tier of at least {@code minFiles} files is rewritten; the files
   * of a smaller tier are left as they are, unless their deletes reach the
   * {@link #deletedRowsThreshold} (which, with tiers, applies to every file not merged, small or
   * not). A merged file is at least {@code 1 + 1/sizeRatio} times larger than the largest file it
   * merged, so a row is rewritten O(log(table / batch)) times before it reaches a file of the
   * small-file size, where it stays. Delete files are handled as without tiers.
   *
   * <pre>{@code
   * table.maintenance().compact().sizeTiers(2.0, 4).execute();
   * }</pre>
   *
   * @param sizeRatio at least 1 (default {@value MaintenancePolicy#DEFAULT_COMPACTION_SIZE_RATIO})
   * @param minFiles at least 2 (default {@value MaintenancePolicy#DEFAULT_COMPACTION_TIER_FILES})
   * @throws InvalidArgumentException {@code Cannot compact size tiers: size ratio must be a number of
   *     at least 1: 0.5}, or {@code Cannot compact size tiers: files per tier must be at least 2: 1}
   */
  Compaction sizeTiers(double sizeRatio, int minFiles);

  /** Sorts the rows of each partition by this order (default: the table's sort order, if any). */
  Compaction sortBy(SortOrder order);

  /** Only compacts files that may hold rows matching this filter (on partition columns). */
  Compaction filter(Expression filter);

  /**
   * Rewrites and commits.
   *
   * @throws CommitConflictException if a concurrent commit conflicts; nothing is left behind
   */
  CompactionResult execute();
}
