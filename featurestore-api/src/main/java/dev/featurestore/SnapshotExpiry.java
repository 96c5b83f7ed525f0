package dev.featurestore;

import java.time.Instant;

/**
 * A pending snapshot expiry. Keep the last N snapshots of {@code main}, expire those older than a
 * time, or both (a snapshot is expired only if it is older than the time and not among the last
 * N). Snapshots a tag or branch holds (within the ref's own retention settings) are never
 * expired. Files no longer reachable from any remaining snapshot are deleted.
 *
 * <pre>{@code
 * ExpireResult r = table.maintenance().expireSnapshots()
 *     .olderThan(Instant.now().minus(Duration.ofDays(7)))
 *     .retainLast(10)
 *     .execute();
 * }</pre>
 *
 * <p>Single-use: a second {@code execute()} throws {@link InvalidStateException} ({@code Cannot
 * execute snapshot expiry of table <id>: already executed}).
 */
public interface SnapshotExpiry {
  /**
   * Keeps at least the last {@code count} snapshots of {@code main}.
   *
   * @throws IllegalArgumentException if {@code count < 1}
   */
  SnapshotExpiry retainLast(int count);

  /** Expires snapshots committed before {@code time} (except those kept by other rules). */
  SnapshotExpiry olderThan(Instant time);

  /**
   * Expires one snapshot by id, whatever its age.
   *
   * @throws ValidationException on {@code execute()} if a ref holds it
   * @throws SnapshotNotFoundException on {@code execute()} if it does not exist
   */
  SnapshotExpiry expireSnapshotId(long snapshotId);

  /** Whether to delete files no longer reachable (default true). */
  SnapshotExpiry deleteFiles(boolean deleteFiles);

  /**
   * Commits the expiry and deletes the unreachable files.
   *
   * @throws IllegalArgumentException if neither a count, a time nor a snapshot id was given
   * @throws CommitConflictException if a concurrent commit conflicts after all retries
   */
  ExpireResult execute();
}
