package dev.featurestore.core.snapshot;

import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotManager;
import dev.featurestore.core.TableHandle;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** STUB: to be implemented. */
public final class Snapshots implements SnapshotManager {
  private final TableHandle handle;

  public Snapshots(TableHandle handle) {
    this.handle = handle;
  }

  @Override public List<SnapshotInfo> history() { throw new UnsupportedOperationException(); }
  @Override public Optional<SnapshotInfo> current() { throw new UnsupportedOperationException(); }
  @Override public SnapshotInfo snapshot(long snapshotId) { throw new UnsupportedOperationException(); }
  @Override public SnapshotInfo snapshotAsOf(Instant time) { throw new UnsupportedOperationException(); }
  @Override public SnapshotInfo rollbackTo(long snapshotId) { throw new UnsupportedOperationException(); }
  @Override public SnapshotInfo rollbackToTime(Instant time) { throw new UnsupportedOperationException(); }
  @Override public SnapshotInfo setCurrent(long snapshotId) { throw new UnsupportedOperationException(); }
  @Override public void createTag(String name, long snapshotId) { throw new UnsupportedOperationException(); }
  @Override public void createBranch(String name, long snapshotId) { throw new UnsupportedOperationException(); }
  @Override public Map<String, Long> refs() { throw new UnsupportedOperationException(handle.id().toString()); }
}
