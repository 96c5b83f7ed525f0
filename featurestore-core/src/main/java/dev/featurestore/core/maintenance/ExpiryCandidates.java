package dev.featurestore.core.maintenance;

import dev.featurestore.MaintenancePolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
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

  /**
   * The expiry cutoff of {@code policy} at {@code now}: snapshots older than it go (beyond those
   * kept). {@code now - maxSnapshotAge}, moved up to the newest {@code maxSnapshots}-th snapshot's
   * time when the table has more, so at most that many survive whatever their age.
   */
  static Instant cutoff(Table table, MaintenancePolicy policy, Instant now) {
    Instant byAge = now.minus(policy.maxSnapshotAge());
    int max = policy.maxSnapshots();
    if (max == Integer.MAX_VALUE) {
      return byAge;
    }
    List<Long> times = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      times.add(s.timestampMillis());
    }
    if (times.size() <= max) {
      return byAge;
    }
    times.sort(Comparator.reverseOrder());
    Instant byCount = Instant.ofEpochMilli(times.get(max - 1)); // older than the max-th newest: expired
    return byCount.isAfter(byAge) ? byCount : byAge;
  }

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
