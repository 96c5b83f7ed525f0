package dev.featurestore.spark;

import dev.featurestore.Compaction;
import dev.featurestore.CompactionResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.util.PropertyUtil;

/**
 * {@link Compaction} as Iceberg's Spark {@code rewriteDataFiles}, with the library's selection:
 * per partition, the files smaller than the small-file threshold (default three quarters of the
 * target size) and the larger files whose deleted rows reach the deleted-rows threshold (Iceberg's
 * {@code delete-ratio-threshold}, which counts file-scoped position deletes and deletion vectors
 * only; at 0, every file with deletes), rewritten when there are at least
 * {@code minInputFiles} of them or any has deletes; large files are not split. The deletes are
 * applied (deleted rows are gone from the new files) and delete files nothing needs any more are
 * removed. One commit (no partial progress).
 */
final class SparkCompaction implements Compaction {
  private final SparkTableMaintenance maintenance;
  private Long targetFileSize;
  private Long smallFileThreshold;
  private double deletedRowsThreshold = dev.featurestore.MaintenancePolicy.DEFAULT_DELETED_ROWS_THRESHOLD;
  private int minInputFiles = 2;
  private int tierFiles = 1;
  private SortOrder sortOrder;
  private Expression filter;
  private boolean used;

  SparkCompaction(SparkTableMaintenance maintenance) {
    this.maintenance = maintenance;
  }

  @Override
  public Compaction targetFileSizeBytes(long bytes) {
    InvalidArgumentException.check(bytes > 0, "Cannot compact: target file size must be positive: %s", bytes);
    this.targetFileSize = bytes;
    return this;
  }

  @Override
  public Compaction smallFileThresholdBytes(long bytes) {
    InvalidArgumentException.check(bytes > 0, "Cannot compact: small-file threshold must be positive: %s", bytes);
    this.smallFileThreshold = bytes;
    return this;
  }

  @Override
  public Compaction deletedRowsThreshold(double fraction) {
    InvalidArgumentException.check(fraction >= 0 && fraction <= 1,
        "Cannot compact: deleted-rows threshold must be between 0 and 1: %s", fraction);
    this.deletedRowsThreshold = fraction;
    return this;
  }

  @Override
  public Compaction minInputFiles(int count) {
    InvalidArgumentException.check(count >= 1, "Cannot compact: minimum input files must be at least 1: %s", count);
    this.minInputFiles = count;
    return this;
  }

  /**
   * Checked as the library's compaction checks it, but Iceberg's Spark bin-packing has no size
   * tiers: here the tiers' file count only raises {@code min-input-files} (a partition is
   * rewritten once it has that many small files, all of them), and the size ratio is not used.
   */
  @Override
  public Compaction sizeTiers(double sizeRatio, int minFiles) {
    InvalidArgumentException.check(sizeRatio >= 1 && !Double.isInfinite(sizeRatio),
        "Cannot compact size tiers: size ratio must be a number of at least 1: %s", sizeRatio);
    InvalidArgumentException.check(minFiles >= 2, "Cannot compact size tiers: files per tier must be at least 2: %s", minFiles);
    this.tierFiles = minFiles;
    return this;
  }

  @Override
  public Compaction sortBy(SortOrder order) {
    this.sortOrder = InvalidArgumentException.requireNonNull(order, "compact", "order");
    return this;
  }

  @Override
  public Compaction filter(Expression filter) {
    this.filter = InvalidArgumentException.requireNonNull(filter, "compact", "filter");
    return this;
  }

  @Override
  public CompactionResult execute() {
    if (used) {
      throw new InvalidStateException("Cannot execute compaction of table " + maintenance.id() + ": already executed");
    }
    used = true;
    return maintenance.run("compact", () -> {
      Table table = maintenance.table();
      Snapshot before = table.currentSnapshot();
      if (before == null) {
        return CompactionResult.nothingToDo();
      }
      long target = targetFileSize != null ? targetFileSize
          : PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
      long small = smallFileThreshold != null ? smallFileThreshold : Math.max(1, target * 3 / 4);
      RewriteDataFiles rewrite = maintenance.actions().rewriteDataFiles(table)
          .option(RewriteDataFiles.TARGET_FILE_SIZE_BYTES, Long.toString(target))
          .option("min-file-size-bytes", Long.toString(Math.min(small, target)))
          .option("max-file-size-bytes", Long.toString(Long.MAX_VALUE / 4)) // never split a large file
          .option("min-input-files", Integer.toString(Math.max(minInputFiles, tierFiles)))
          .option("delete-file-threshold", deletedRowsThreshold == 0 ? "1" : Integer.toString(Integer.MAX_VALUE))
          .option("delete-ratio-threshold", Double.toString(deletedRowsThreshold == 0 ? 1 : deletedRowsThreshold))
          .option(RewriteDataFiles.PARTIAL_PROGRESS_ENABLED, "false")
          .option(RewriteDataFiles.REMOVE_DANGLING_DELETES, "true");
      rewrite = sortOrder != null ? rewrite.sort(sortOrder) : rewrite.binPack();
      if (filter != null) {
        rewrite = rewrite.filter(filter);
      }
      RewriteDataFiles.Result result = rewrite.execute();
      if (result.rewrittenDataFilesCount() == 0) {
        return CompactionResult.nothingToDo();
      }
      table.refresh();
      long addedBytes = 0;
      long rows = 0;
      for (Snapshot s = table.currentSnapshot(); s != null && s.snapshotId() != before.snapshotId();
          s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
        Map<String, String> summary = s.summary();
        if (DataOperations.REPLACE.equals(s.operation()) && summary != null) {
          addedBytes += Long.parseLong(summary.getOrDefault(SnapshotSummary.ADDED_FILE_SIZE_PROP, "0"));
          rows += Long.parseLong(summary.getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"));
        }
      }
      Set<Object> partitions = new HashSet<>();
      result.rewriteResults().forEach(group -> partitions.add(String.valueOf(group.info().partition())));
      maintenance.record("compact", table.currentSnapshot().snapshotId(), Map.of("rewritten_files",
          result.rewrittenDataFilesCount(), "added_files", result.addedDataFilesCount(), "removed_delete_files",
          result.removedDeleteFilesCount(), "rewritten_bytes", result.rewrittenBytesCount(), "added_bytes", addedBytes,
          "rows", rows));
      return new CompactionResult(OptionalLong.of(table.currentSnapshot().snapshotId()), result.rewrittenDataFilesCount(),
          result.addedDataFilesCount(), result.removedDeleteFilesCount(), result.rewrittenBytesCount(), addedBytes, rows,
          partitions.size());
    });
  }
}
