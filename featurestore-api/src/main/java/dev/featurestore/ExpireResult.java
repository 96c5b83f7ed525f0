package dev.featurestore;

import java.util.List;

/**
 * What a snapshot expiry removed.
 *
 * @param expiredSnapshotIds snapshots removed from the table's metadata, oldest first
 * @param deletedDataFiles data files deleted
 * @param deletedDeleteFiles delete files (position or equality) deleted
 * @param deletedManifests manifests deleted
 * @param deletedManifestLists manifest lists deleted
 * @param deletedOtherFiles other files deleted (statistics files)
 * @param bytesFreed bytes of all deleted files
 */
public record ExpireResult(
    List<Long> expiredSnapshotIds,
    long deletedDataFiles,
    long deletedDeleteFiles,
    long deletedManifests,
    long deletedManifestLists,
    long deletedOtherFiles,
    long bytesFreed) {
  public ExpireResult {
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
  }

  /** Number of snapshots expired. */
  public int expiredSnapshots() {
    return expiredSnapshotIds.size();
  }

  /** Number of files deleted, of every kind. */
  public long deletedFiles() {
    return deletedDataFiles + deletedDeleteFiles + deletedManifests + deletedManifestLists + deletedOtherFiles;
  }
}
