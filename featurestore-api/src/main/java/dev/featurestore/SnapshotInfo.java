package dev.featurestore;

import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One snapshot (commit) of a table, with what it changed.
 *
 * @param snapshotId the snapshot id
 * @param parentId the parent snapshot, empty for the first one
 * @param timestamp when it was committed
 * @param operation Iceberg's operation name: {@code append}, {@code overwrite}, {@code delete},
 *     {@code replace}
 * @param schemaId the schema the snapshot was written with
 * @param addedRows rows added by this commit
 * @param deletedRows rows deleted by this commit
 * @param totalRows rows in the table after this commit
 * @param addedDataFiles data files added
 * @param removedDataFiles data files removed
 * @param addedBytes bytes of data files added
 * @param removedBytes bytes of data files removed
 * @param current whether this is the table's current snapshot
 * @param summary the full Iceberg snapshot summary
 */
public record SnapshotInfo(
    long snapshotId,
    OptionalLong parentId,
    Instant timestamp,
    String operation,
    int schemaId,
    long addedRows,
    long deletedRows,
    long totalRows,
    long addedDataFiles,
    long removedDataFiles,
    long addedBytes,
    long removedBytes,
    boolean current,
    Map<String, String> summary) {
  public SnapshotInfo {
    summary = Map.copyOf(summary);
  }
}
