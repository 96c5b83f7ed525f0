package dev.featurestore;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How fresh an online view is.
 *
 * @param snapshotId the source snapshot the view reflects (empty: never materialized)
 * @param snapshotCommittedAt when that snapshot was committed
 * @param materializedAt when the view last reached it
 * @param snapshotAge the time since that snapshot was committed (zero if never materialized)
 * @param currentSnapshotId the table's current snapshot as of this check
 * @param snapshotsBehind commits of the table the view does not reflect yet (on the current branch;
 *     -1 if the view is not on the current branch, e.g. after a rollback, until it is rebuilt)
 * @param lag the time since the oldest commit the view does not reflect; zero when up to date
 */
public record OnlineLag(
    OptionalLong snapshotId, Optional<Instant> snapshotCommittedAt, Optional<Instant> materializedAt,
    Duration snapshotAge, OptionalLong currentSnapshotId, long snapshotsBehind, Duration lag) {

  public boolean upToDate() {
    return snapshotsBehind == 0;
  }
}
