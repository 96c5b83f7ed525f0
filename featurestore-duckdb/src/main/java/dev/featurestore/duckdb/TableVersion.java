package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;

import dev.featurestore.FeatureTable;
import dev.featurestore.TimeTravelQuery;
import java.time.Instant;
import org.apache.iceberg.expressions.Expression;

/**
 * One version of a feature table to appear as a named relation in SQL.
 *
 * @deprecated Give the API's {@link TimeTravelQuery} instead ({@code table.query().asOfSnapshot(id)
 *     .select(...).filter(...)}): the same version, columns and filter, resolved by the same
 *     resolver as core reads. This class delegates to one and will be removed in the next release.
 */
@Deprecated
public final class TableVersion {
  private final FeatureTable table;
  private final TimeTravelQuery query;

  private TableVersion(FeatureTable table, TimeTravelQuery query) {
    this.table = table;
    this.query = query;
  }

  /** The current snapshot of {@code table}, every column, no filter. */
  public static TableVersion of(FeatureTable table) {
    InvalidArgumentException.requireNonNull(table, "read table version", "table");
    return new TableVersion(table, table.query());
  }

  /** Reads the current snapshot. */
  public TableVersion current() {
    return new TableVersion(table, query.current());
  }

  /** Reads a snapshot by id. */
  public TableVersion asOfSnapshot(long id) {
    return new TableVersion(table, query.asOfSnapshot(id));
  }

  /** Reads the snapshot that was current at {@code at}. */
  public TableVersion asOf(Instant at) {
    return new TableVersion(table, query.asOf(at));
  }

  /** Reads the snapshot a tag or branch points to. */
  public TableVersion atRef(String name) {
    return new TableVersion(table, query.atRef(name));
  }

  /** Projects these top-level columns (of the chosen version's schema), in this order. */
  public TableVersion select(String... selected) {
    return new TableVersion(table, query.select(selected));
  }

  /** Adds a row filter, combined with earlier filters by AND. */
  public TableVersion filter(Expression more) {
    return new TableVersion(table, query.filter(more));
  }

  public FeatureTable table() {
    return table;
  }

  public Expression filter() {
    return query.filter();
  }

  /** The query this version stands for. */
  public TimeTravelQuery toQuery() {
    return query;
  }

  @Override
  public String toString() {
    return "TableVersion{" + query + "}";
  }
}
