package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import dev.featurestore.ReadVersion;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TableId;
import java.time.Instant;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Internal: resolves a {@link ReadVersion} against a table's metadata to a snapshot and the schema
 * to read it with. The one resolver every reader uses (core queries, the DuckDB adapter), so each
 * reads the same snapshot with the same schema and fails with the same messages.
 *
 * <p>Iceberg's schema rule: the current state and branches read with the table's schema (a schema
 * change is visible before the next write); snapshot ids, times and tags read with the schema the
 * snapshot was written with, so renamed and dropped columns read as they were then.
 */
public final class VersionResolver {
  private static final Instant EARLIEST_MILLIS = Instant.ofEpochMilli(Long.MIN_VALUE);
  private static final Instant LATEST_MILLIS = Instant.ofEpochMilli(Long.MAX_VALUE);

  private VersionResolver() {}

  /** A resolved version: the snapshot (null for the current state of an empty table) and its read schema. */
  public record Resolved(Table table, Snapshot snapshot, Schema schema) {
    public long snapshotId() {
      return snapshot == null ? -1L : snapshot.snapshotId();
    }
  }

  /**
   * Resolves {@code version} against {@code table} as it is (refresh it first).
   *
   * @throws SnapshotNotFoundException for an unknown snapshot id or ref, or a time before the first snapshot
   */
  public static Resolved resolve(TableId id, Table table, ReadVersion version) {
    requireNonNull(table, "table is null");
    requireNonNull(version, "version is null");
    String prefix = "Cannot read table " + id + ": ";
    Snapshot snapshot;
    boolean tableSchema;
    switch (version.kind()) {
      case CURRENT -> {
        snapshot = table.currentSnapshot();
        tableSchema = true;
      }
      case SNAPSHOT -> {
        snapshot = table.snapshot(version.snapshotId());
        if (snapshot == null) {
          throw new SnapshotNotFoundException(prefix + "unknown snapshot id: " + version.snapshotId());
        }
        tableSchema = false;
      }
      case TIME -> {
        Instant time = version.time().orElseThrow();
        Long at = time.isBefore(EARLIEST_MILLIS) ? null
            // a time past the last millisecond a long holds is later than every snapshot
            : SnapshotUtil.nullableSnapshotIdAsOfTime(table, time.isAfter(LATEST_MILLIS) ? Long.MAX_VALUE
                : time.toEpochMilli());
        snapshot = at == null ? null : table.snapshot(at);
        if (snapshot == null) {
          throw new SnapshotNotFoundException(prefix + "time is before the first snapshot: " + time);
        }
        tableSchema = false;
      }
      case REF -> {
        SnapshotRef ref = table.refs().get(version.ref().orElseThrow());
        snapshot = ref == null ? null : table.snapshot(ref.snapshotId());
        if (snapshot == null) {
          throw new SnapshotNotFoundException(prefix + "unknown ref: " + version.ref().get());
        }
        tableSchema = ref.isBranch();
      }
      default -> throw new dev.featurestore.InvalidStateException("Cannot resolve version: unknown kind: " + version.kind());
    }
    if (snapshot == null || tableSchema) {
      return new Resolved(table, snapshot, table.schema());
    }
    Integer schemaId = snapshot.schemaId();
    Schema schema = schemaId == null ? null : table.schemas().get(schemaId);
    return new Resolved(table, snapshot, schema != null ? schema : SnapshotUtil.schemaFor(table, snapshot.snapshotId()));
  }
}
