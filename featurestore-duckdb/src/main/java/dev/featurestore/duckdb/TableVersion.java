package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;
import static java.util.Objects.requireNonNull;

import dev.featurestore.FeatureTable;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * One version of a feature table to appear as a named relation in SQL: which snapshot (current,
 * by id, as of a time, or a tag or branch), which columns, and an optional Iceberg filter that
 * prunes files by partition and column statistics and then filters rows exactly.
 *
 * <p>Immutable: every refinement returns a new version, so a base can be shared between threads.
 * The version is resolved when a query runs, after refreshing the table.
 *
 * <pre>{@code
 * TableVersion lastWeek = TableVersion.of(events)
 *     .asOf(Instant.parse("2026-11-25T00:00:00Z"))
 *     .filter(Expressions.greaterThan("feature_a", 0.5));
 * }</pre>
 *
 * <p>Schemas follow Iceberg's rule: the current version and branches read with the table's
 * current schema; a snapshot id, a time or a tag reads with the schema that snapshot was written
 * with, so renamed and dropped columns read as they were then.
 */
public final class TableVersion {
  enum Kind { CURRENT, SNAPSHOT, TIME, REF }

  private final FeatureTable table;
  private final Kind kind;
  private final long snapshotId;
  private final Instant time;
  private final String ref;
  private final List<String> columns; // null: every column
  private final Expression filter;

  private TableVersion(FeatureTable table, Kind kind, long snapshotId, Instant time, String ref,
      List<String> columns, Expression filter) {
    this.table = table;
    this.kind = kind;
    this.snapshotId = snapshotId;
    this.time = time;
    this.ref = ref;
    this.columns = columns;
    this.filter = filter;
  }

  /** The current snapshot of {@code table}, every column, no filter. */
  public static TableVersion of(FeatureTable table) {
    requireNonNull(table, "table is null");
    return new TableVersion(table, Kind.CURRENT, -1, null, null, null, Expressions.alwaysTrue());
  }

  /** Reads the current snapshot. */
  public TableVersion current() {
    return new TableVersion(table, Kind.CURRENT, -1, null, null, columns, filter);
  }

  /** Reads a snapshot by id. */
  public TableVersion asOfSnapshot(long id) {
    return new TableVersion(table, Kind.SNAPSHOT, id, null, null, columns, filter);
  }

  /** Reads the snapshot that was current at {@code at}. */
  public TableVersion asOf(Instant at) {
    requireNonNull(at, "time is null");
    return new TableVersion(table, Kind.TIME, -1, at, null, columns, filter);
  }

  /** Reads the snapshot a tag or branch points to. */
  public TableVersion atRef(String name) {
    requireNonNull(name, "ref is null");
    return new TableVersion(table, Kind.REF, -1, null, name, columns, filter);
  }

  /** Projects these top-level columns (of the chosen version's schema), in this order. */
  public TableVersion select(String... selected) {
    requireNonNull(selected, "columns is null");
    if (selected.length == 0) {
      throw new InvalidArgumentException("Cannot select columns: no column given");
    }
    for (String column : selected) {
      requireNonNull(column, "column is null");
    }
    return new TableVersion(table, kind, snapshotId, time, ref, List.copyOf(Arrays.asList(selected)), filter);
  }

  /** Adds a row filter, combined with earlier filters by AND. */
  public TableVersion filter(Expression more) {
    requireNonNull(more, "filter is null");
    Expression combined = filter == Expressions.alwaysTrue() ? more : Expressions.and(filter, more);
    return new TableVersion(table, kind, snapshotId, time, ref, columns, combined);
  }

  public FeatureTable table() {
    return table;
  }

  Kind kind() {
    return kind;
  }

  long snapshotId() {
    return snapshotId;
  }

  Instant time() {
    return time;
  }

  String ref() {
    return ref;
  }

  Optional<List<String>> columns() {
    return Optional.ofNullable(columns);
  }

  public Expression filter() {
    return filter;
  }

  @Override
  public String toString() {
    String version = switch (kind) {
      case CURRENT -> "current";
      case SNAPSHOT -> "snapshot " + snapshotId;
      case TIME -> "as of " + time;
      case REF -> "ref " + ref;
    };
    return "TableVersion{table=" + table.id() + ", " + version + ", columns=" + (columns == null ? "*" : columns)
        + ", filter=" + filter + "}";
  }
}
