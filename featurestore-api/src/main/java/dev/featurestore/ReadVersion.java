package dev.featurestore;


import java.time.Instant;
import java.util.Optional;

/**
 * Which version of a table a read names, before it is resolved: the current snapshot, a snapshot
 * by id, the snapshot current at a time, or the snapshot a tag or branch points to. Every reader
 * (a {@link TimeTravelQuery}, the SQL adapter) resolves it the same way, when it runs, after
 * refreshing the table.
 *
 * <p>Schemas follow Iceberg's rule: the current version and branches read with the table's
 * current schema; a snapshot id, a time or a tag reads with the schema that snapshot was written
 * with.
 *
 * @param kind which kind of version
 * @param snapshotId the snapshot id ({@link Kind#SNAPSHOT} only, else -1)
 * @param time the time ({@link Kind#TIME} only, else empty)
 * @param ref the tag or branch name ({@link Kind#REF} only, else empty)
 */
public record ReadVersion(Kind kind, long snapshotId, Optional<Instant> time, Optional<String> ref) {
  /** The kinds of version. */
  public enum Kind { CURRENT, SNAPSHOT, TIME, REF }

  private static final ReadVersion CURRENT = new ReadVersion(Kind.CURRENT, -1, Optional.empty(), Optional.empty());

  public ReadVersion {
    InvalidArgumentException.requireNonNull(kind, "describe version", "kind");
    InvalidArgumentException.requireNonNull(time, "describe version", "time");
    InvalidArgumentException.requireNonNull(ref, "describe version", "ref");
    InvalidArgumentException.check((kind == Kind.TIME) == time.isPresent() && (kind == Kind.REF) == ref.isPresent()
        && (kind == Kind.SNAPSHOT || snapshotId == -1),
        "Cannot describe version: parts do not match the kind %s: snapshot %s, time %s, ref %s", kind, snapshotId,
        time, ref);
  }

  /** The current snapshot (the default of every read). */
  public static ReadVersion current() {
    return CURRENT;
  }

  /** A snapshot by id. */
  public static ReadVersion snapshot(long snapshotId) {
    return new ReadVersion(Kind.SNAPSHOT, snapshotId, Optional.empty(), Optional.empty());
  }

  /** The snapshot that was current at {@code time}. */
  public static ReadVersion asOf(Instant time) {
    return new ReadVersion(Kind.TIME, -1, Optional.of(InvalidArgumentException.requireNonNull(time, "read as of time", "time")), Optional.empty());
  }

  /** The snapshot a tag or branch points to. */
  public static ReadVersion ref(String name) {
    return new ReadVersion(Kind.REF, -1, Optional.empty(), Optional.of(InvalidArgumentException.requireNonNull(name, "read ref", "ref")));
  }

  /** {@code current}, {@code snapshot <id>}, {@code as of <time>} or {@code ref <name>}. */
  @Override
  public String toString() {
    return switch (kind) {
      case CURRENT -> "current";
      case SNAPSHOT -> "snapshot " + snapshotId;
      case TIME -> "as of " + time.get();
      case REF -> "ref " + ref.get();
    };
  }
}
