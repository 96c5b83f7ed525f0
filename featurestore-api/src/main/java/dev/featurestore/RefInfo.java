package dev.featurestore;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A named ref of a table (a branch or a tag) with its retention settings. An empty setting means
 * the table-wide default applies.
 *
 * @param name the ref's name ({@code main} is the table's main branch)
 * @param type branch or tag
 * @param snapshotId the snapshot it points to
 * @param minSnapshotsToKeep branches: snapshots of the branch expiry always keeps
 * @param maxSnapshotAge branches: snapshots of the branch older than this may be expired
 * @param maxRefAge how long the ref itself is kept before expiry removes it ({@code main} never)
 */
public record RefInfo(
    String name,
    Type type,
    long snapshotId,
    OptionalInt minSnapshotsToKeep,
    Optional<Duration> maxSnapshotAge,
    Optional<Duration> maxRefAge) {
  public enum Type {
    BRANCH,
    TAG
  }
}
