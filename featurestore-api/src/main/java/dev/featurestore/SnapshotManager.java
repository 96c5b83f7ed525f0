package dev.featurestore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The snapshot history of a table and the operations that move its current snapshot.
 *
 * <pre>{@code
 * SnapshotManager snapshots = table.snapshots();
 * for (SnapshotInfo s : snapshots.history()) {
 *   System.out.printf("%d %s +%d -%d rows%n", s.snapshotId(), s.operation(), s.addedRows(), s.deletedRows());
 * }
 * snapshots.rollbackTo(snapshots.history().get(0).snapshotId());
 * }</pre>
 *
 * <p>Rollback and set-current move the table's {@code main} branch; they do not delete anything,
 * so the snapshots that were current stay readable by id until they are expired.
 */
public interface SnapshotManager {
  /**
   * Every snapshot of the table that is still known, oldest first, with per-commit row, file and
   * byte deltas. Includes snapshots that are no longer ancestors of the current one (for example
   * after a rollback).
   */
  List<SnapshotInfo> history();

  /** The current snapshot, or empty for a table with no commit yet. */
  Optional<SnapshotInfo> current();

  /**
   * One snapshot by id.
   *
   * @throws SnapshotNotFoundException if the table has no snapshot with that id
   */
  SnapshotInfo snapshot(long snapshotId);

  /**
   * The snapshot that was current at {@code time}.
   *
   * @throws SnapshotNotFoundException if {@code time} is before the first snapshot
   */
  SnapshotInfo snapshotAsOf(Instant time);

  /**
   * Rolls the table back to an ancestor of the current snapshot.
   *
   * @throws SnapshotNotFoundException if the snapshot does not exist
   * @throws ValidationException if it is not an ancestor of the current snapshot (use {@link
   *     #setCurrent(long)})
   */
  SnapshotInfo rollbackTo(long snapshotId);

  /**
   * Rolls the table back to the snapshot that was current at {@code time}.
   *
   * @throws SnapshotNotFoundException if {@code time} is before the first snapshot
   */
  SnapshotInfo rollbackToTime(Instant time);

  /**
   * Makes any known snapshot current, ancestor or not.
   *
   * @throws SnapshotNotFoundException if the snapshot does not exist
   */
  SnapshotInfo setCurrent(long snapshotId);

  /**
   * Tags a snapshot with a name, so it can be read by that name and survives expiry.
   *
   * @throws AlreadyExistsException if a ref with that name exists
   * @throws SnapshotNotFoundException if the snapshot does not exist
   */
  void createTag(String name, long snapshotId);

  /**
   * Creates a branch at a snapshot.
   *
   * @throws AlreadyExistsException if a ref with that name exists
   * @throws SnapshotNotFoundException if the snapshot does not exist
   */
  void createBranch(String name, long snapshotId);

  /** Tags and branches by name, with the snapshot each points to. Includes {@code main}. */
  Map<String, Long> refs();
  /**
   * Moves a tag to another snapshot.
   *
   * @throws NotFoundException if no tag has that name
   * @throws SnapshotNotFoundException if the snapshot does not exist
   */
  void replaceTag(String name, long snapshotId);

  /**
   * Points a branch at another snapshot (any snapshot, ancestor or not).
   *
   * @throws NotFoundException if no branch has that name
   * @throws SnapshotNotFoundException if the snapshot does not exist
   */
  void replaceBranch(String name, long snapshotId);

  /**
   * Renames a branch ({@code main} cannot be renamed).
   *
   * @throws NotFoundException if no branch has the old name
   * @throws AlreadyExistsException if a ref has the new name
   */
  void renameBranch(String name, String newName);

  /**
   * Removes a tag; its snapshot stays until it is expired.
   *
   * @throws NotFoundException if no tag has that name
   */
  void removeTag(String name);

  /**
   * Removes a branch ({@code main} cannot be removed); its snapshots stay until expired.
   *
   * @throws NotFoundException if no branch has that name
   */
  void removeBranch(String name);

  /**
   * Moves branch {@code branch} forward to the snapshot ref {@code to} points to.
   *
   * @throws NotFoundException if either ref does not exist
   * @throws ValidationException if {@code branch}'s snapshot is not an ancestor of {@code to}'s
   */
  SnapshotInfo fastForward(String branch, String to);

  /**
   * Write-audit-publish: makes {@code main} what {@code branch} holds, by fast-forwarding {@code
   * main} to it. Write to a branch, audit it with {@code table.query().atRef(branch)}, then
   * publish.
   *
   * @throws NotFoundException if the branch does not exist
   * @throws ValidationException if {@code main} moved on since the branch was created (not an
   *     ancestor): cherry-pick the branch's commits instead
   */
  default SnapshotInfo publish(String branch) {
    return fastForward("main", branch);
  }

  /**
   * Applies the changes of one snapshot (an append, or an overwrite whose replaced files are
   * unchanged) on top of {@code main} as a new snapshot.
   *
   * @throws SnapshotNotFoundException if the snapshot does not exist
   * @throws ValidationException if it cannot be applied (for example it is already an ancestor)
   */
  SnapshotInfo cherryPick(long snapshotId);

  /**
   * Sets how many snapshots expiry always keeps on a branch.
   *
   * @throws NotFoundException if no branch has that name
   * @throws InvalidArgumentException if {@code count < 1}
   */
  void setMinSnapshotsToKeep(String branch, int count);

  /**
   * Sets the age beyond which a branch's snapshots may be expired.
   *
   * @throws NotFoundException if no branch has that name
   */
  void setMaxSnapshotAge(String branch, Duration age);

  /**
   * Sets how long a ref (not {@code main}) is kept before expiry removes it.
   *
   * @throws NotFoundException if no ref has that name
   */
  void setMaxRefAge(String ref, Duration age);

  /** Every ref with its type and retention settings, sorted by name. */
  java.util.List<RefInfo> refInfos();

  /**
   * What changed from one snapshot to another, from metadata alone: row counts, data files and
   * schema. For the rows themselves (every kind of delete applied, rewrites cancelled), diff through
   * a query: {@code table.query().asOfSnapshot(toSnapshotId).diff(fromSnapshotId)} ({@link RowDiff}).
   *
   * @throws SnapshotNotFoundException if either snapshot does not exist
   */
  SnapshotDiff diff(long fromSnapshotId, long toSnapshotId);
}
