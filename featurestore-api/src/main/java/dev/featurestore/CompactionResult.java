package dev.featurestore;

import java.util.OptionalLong;

/**
 * What a compaction did.
 *
 * @param snapshotId the commit it made; empty if there was nothing to compact
 * @param rewrittenDataFiles data files replaced
 * @param addedDataFiles data files written
 * @param removedDeleteFiles delete files removed because every file they applied to was rewritten
 * @param rewrittenBytes bytes of the replaced data files
 * @param addedBytes bytes of the files written
 * @param rows rows written (after applying deletes)
 * @param partitions partitions rewritten
 * @param carriedDeletes row deletes committed by other writers while the files were rewritten,
 *     carried over to the new files (as deletion vectors or position-delete files) in the
 *     compaction's commit
 */
public record CompactionResult(
    OptionalLong snapshotId,
    long rewrittenDataFiles,
    long addedDataFiles,
    long removedDeleteFiles,
    long rewrittenBytes,
    long addedBytes,
    long rows,
    long partitions,
    long carriedDeletes) {
  /** A result without carried-over deletes. */
  public CompactionResult(OptionalLong snapshotId, long rewrittenDataFiles, long addedDataFiles, long removedDeleteFiles,
      long rewrittenBytes, long addedBytes, long rows, long partitions) {
    this(snapshotId, rewrittenDataFiles, addedDataFiles, removedDeleteFiles, rewrittenBytes, addedBytes, rows, partitions, 0);
  }

  /** A compaction that found nothing to do. */
  public static CompactionResult nothingToDo() {
    return new CompactionResult(OptionalLong.empty(), 0, 0, 0, 0, 0, 0, 0);
  }
}
