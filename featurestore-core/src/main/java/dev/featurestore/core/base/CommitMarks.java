package dev.featurestore.core.base;

import java.util.UUID;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;

/**
 * Internal: tags a commit with a random id in its snapshot summary so the operation can find the
 * snapshot it produced afterwards, instead of reporting whatever is current (another process may
 * have committed in between).
 */
public final class CommitMarks {
  /** Snapshot summary key holding the random id of the operation that made the snapshot. */
  public static final String COMMIT_ID_PROPERTY = "featurestore.commit.id";

  /**
   * Snapshot summary keys under this prefix are the stream high-water marks of CDC shards
   * ({@code featurestore.cdc.shard.<shard>.max-seq}); a commit that is not a stream's own (a
   * compaction, a manifest rewrite) carries them forward ({@link #carryStreamMarks}), so that
   * expiring the stream's snapshots behind it never loses a mark.
   */
  public static final String STREAM_MARK_PREFIX = "featurestore.cdc.shard.";

  private final String id = UUID.randomUUID().toString();
  private final String key;

  private CommitMarks(String key) {
    this.key = key;
  }

  /** A new mark stored under {@link #COMMIT_ID_PROPERTY}. */
  public static CommitMarks create() {
    return new CommitMarks(COMMIT_ID_PROPERTY);
  }

  /** A new mark stored under {@code key}. */
  public static CommitMarks under(String key) {
    return new CommitMarks(key);
  }

  public String id() {
    return id;
  }

  public String key() {
    return key;
  }

  /** Copies {@code base}'s stream marks (see {@link #STREAM_MARK_PREFIX}) onto {@code update}; {@code base} may be null. */
  public static <T extends SnapshotUpdate<T>> T carryStreamMarks(Snapshot base, T update) {
    if (base != null) {
      base.summary().forEach((key, value) -> {
        if (key.startsWith(STREAM_MARK_PREFIX)) {
          update.set(key, value);
        }
      });
    }
    return update;
  }

  /** Sets the mark on a pending snapshot update. */
  public <T extends SnapshotUpdate<T>> T mark(T update) {
    return update.set(key, id);
  }

  /**
   * The id of the marked snapshot, searched from the head of {@code branch} (main if null) back
   * through its ancestors; falls back to the head if the mark is not found (it always is after a
   * successful commit, unless the table was rolled back in between).
   */
  public long committedSnapshotId(Table table, String branch) {
    Snapshot head = branch == null ? table.currentSnapshot() : table.snapshot(branch);
    for (Snapshot s = head; s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (id.equals(s.summary().get(key))) {
        return s.snapshotId();
      }
    }
    if (head == null) {
      throw new IllegalStateException("Cannot find committed snapshot: table has no snapshot");
    }
    return head.snapshotId();
  }
}
