package dev.featurestore;

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
}
