package dev.featurestore;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What {@link RowDeletion#forget()} removed, and where the rows still are.
 *
 * @param snapshotId the commit that removed the rows from the current snapshot; empty if the
 *     current snapshot held none
 * @param rowsDeleted live rows removed from the current snapshot
 * @param dataFilesRewritten data files of the current snapshot replaced by copies without the rows
 *     (a file whose every live row matched is dropped, not copied)
 * @param dataFilesWritten the copies written
 * @param expiredSnapshotIds snapshots expired because their files held the rows, oldest first
 * @param expiry the files the expiry deleted, by kind, and the bytes freed
 * @param refsHoldingRows tags and branches (name to snapshot id) whose snapshot still holds the
 *     rows: not expired, their files kept; move or remove the ref and forget again
 */
public record ForgetResult(
    OptionalLong snapshotId,
    long rowsDeleted,
    long dataFilesRewritten,
    long dataFilesWritten,
    List<Long> expiredSnapshotIds,
    ExpireResult expiry,
    Map<String, Long> refsHoldingRows) {
  public ForgetResult {
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
    refsHoldingRows = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(refsHoldingRows));
  }

  /** Whether a ref still holds some of the rows (the forget is then incomplete until it moves). */
  public boolean heldByRefs() {
    return !refsHoldingRows.isEmpty();
  }
}
