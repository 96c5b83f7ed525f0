package dev.featurestore;

import java.util.List;

/**
 * What a {@link Tiering} run did (or, for a dry run, would do).
 *
 * @param dryRun true if nothing was copied or committed
 * @param movedFiles hot locations of the files moved (or that would be moved)
 * @param bytesMoved their bytes
 * @param snapshotIds the commits made, in order (empty for a dry run)
 * @param skipped files old enough that were not moved, with the reason
 * @param hotLeftoversDeleted hot copies of already cold files left by an interrupted run, deleted now
 */
public record TieringResult(boolean dryRun, List<String> movedFiles, long bytesMoved, List<Long> snapshotIds,
    List<SkippedFile> skipped, long hotLeftoversDeleted) {
  public TieringResult {
    movedFiles = List.copyOf(movedFiles);
    snapshotIds = List.copyOf(snapshotIds);
    skipped = List.copyOf(skipped);
  }

  /** Number of files moved. */
  public long filesMoved() {
    return movedFiles.size();
  }

  /** Number of commits made. */
  public int commits() {
    return snapshotIds.size();
  }

  /**
   * A file that was old enough but not moved.
   *
   * @param location its location
   * @param reason why, e.g. "position deletes point at it: compact first"
   */
  public record SkippedFile(String location, String reason) {}
}
