package dev.featurestore.core.maintenance;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;

/**
 * How many snapshots an expiry keeping the last {@code n} of {@code main} and those not older
 * than a cutoff would remove, from metadata only (no manifest is read). Refs' own retention may
 * keep more, so this is an upper bound: zero means an expiry would certainly do nothing.
 */
final class ExpiryCandidates {
  private ExpiryCandidates() {}

  static long count(Table table, int retainLast, Instant cutoff) {
    Set<Long> kept = new HashSet<>();
    int n = 0;
    for (Snapshot s = table.currentSnapshot(); s != null && n < retainLast;
        s = s.parentId() == null ? null : table.snapshot(s.parentId()), n++) {
      kept.add(s.snapshotId());
    }
    for (SnapshotRef ref : table.refs().values()) {
      kept.add(ref.snapshotId());
    }
    long count = 0;
    for (Snapshot s : table.snapshots()) {
      if (!kept.contains(s.snapshotId()) && s.timestampMillis() < cutoff.toEpochMilli()) {
        count++;
      }
    }
    return count;
  }
}
