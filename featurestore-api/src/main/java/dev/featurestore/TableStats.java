package dev.featurestore;

import java.time.Instant;
import java.util.List;

/**
 * Size and history of a table, computed from its metadata (no data file is read).
 *
 * <p>Write amplification is bytes written to storage per byte of data: for a commit, (data files
 * + manifests + manifest list + metadata file it wrote) / data bytes it added; cumulatively, the
 * same sums over every known commit. It is never below 1 when data was written; small commits
 * push it up (each writes about 15 KB of metadata, whatever its size).
 *
 * @param table the table
 * @param rows rows in the current snapshot
 * @param dataFiles data files in the current snapshot
 * @param deleteFiles delete files in the current snapshot
 * @param snapshots snapshots still known
 * @param dataBytes bytes of data files in the current snapshot
 * @param manifestBytes bytes of manifests and manifest lists of all known snapshots
 * @param metadataBytes bytes of metadata JSON files (current and logged previous versions)
 * @param totalBytes all of the above
 * @param writeAmplification cumulative write amplification (0 when nothing was written)
 * @param commits per-commit statistics, oldest first
 */
public record TableStats(
    TableId table,
    long rows,
    long dataFiles,
    long deleteFiles,
    long snapshots,
    long dataBytes,
    long manifestBytes,
    long metadataBytes,
    long totalBytes,
    double writeAmplification,
    List<CommitStats> commits) {
  public TableStats {
    commits = List.copyOf(commits);
  }

  /**
   * One commit's statistics; the {@code totalRows} series over commits is what a
   * rows-over-snapshots chart draws.
   *
   * @param snapshotId the snapshot
   * @param timestamp commit time
   * @param operation the operation
   * @param addedRows rows added
   * @param deletedRows rows deleted
   * @param totalRows rows after the commit
   * @param dataBytesWritten bytes of data files added
   * @param metadataBytesWritten bytes of manifests, manifest list and metadata file written
   * @param writeAmplification (data + metadata bytes written) / data bytes written; 0 if no data
   */
  public record CommitStats(
      long snapshotId,
      Instant timestamp,
      String operation,
      long addedRows,
      long deletedRows,
      long totalRows,
      long dataBytesWritten,
      long metadataBytesWritten,
      double writeAmplification) {}
}
