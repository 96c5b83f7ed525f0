package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Internal: what the writers of one table in one store share: the table's commit lock (fair, so a
 * compaction waiting for it is not starved by a stream that takes it again right away) and the
 * row moves of the last few compactions, so a writer holding a cache of row locations (the CDC key
 * index) can follow a compaction without re-reading the new files. Reached from a
 * {@code FeatureTable} with {@code unwrap(TableCoordination.class)}; outside the compatibility
 * promise. Thread-safe.
 */
public final class TableCoordination {
  private static final int KEPT_MOVES = 8;
  private final ReentrantLock commitLock;
  private final Deque<RowMoves> moves = new ArrayDeque<>();

  public TableCoordination() {
    this(new ReentrantLock(true));
  }

  public TableCoordination(ReentrantLock commitLock) {
    this.commitLock = requireNonNull(commitLock, "commitLock is null");
  }

  /** The lock every commit to the table from this store holds. */
  public ReentrantLock commitLock() {
    return commitLock;
  }

  /** Runs {@code action} holding the commit lock; nothing refreshed, nothing translated. */
  public <T> T locked(Supplier<T> action) {
    commitLock.lock();
    try {
      return action.get();
    } finally {
      commitLock.unlock();
    }
  }

  /** A compaction committed: its moves, by its snapshot id. */
  public synchronized void published(RowMoves committed) {
    if (committed.snapshotId() < 0) {
      throw new IllegalArgumentException("Cannot publish row moves: not committed");
    }
    moves.addLast(committed);
    while (moves.size() > KEPT_MOVES) {
      moves.removeFirst();
    }
  }

  /** The row moves of the compaction that made {@code snapshotId}, if it was one of the last few of this store. */
  public synchronized Optional<RowMoves> moves(long snapshotId) {
    for (RowMoves m : moves) {
      if (m.snapshotId() == snapshotId) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }
}
