package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckTypes.identifier;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.TrainingSetDefinition;
import dev.featurestore.core.base.TrainingSetLineage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A point-in-time correct training set: for each label row (entity key, event time, label ...),
 * the latest values of each feature table at or before the label's time, for the same entity,
 * optionally only when no older than the feature table's time-to-live. Each table is read at the
 * version its {@link TimeTravelQuery} names, so a training set can be rebuilt exactly later.
 *
 * <pre>{@code
 * TrainingSet set = sql.trainingSet()
 *     .labels(labels.query().asOfSnapshot(labelsSnapshot), "entity_id", "label_time")
 *     .features("ev", events.query().asOfSnapshot(featuresSnapshot), "entity_id", "event_time",
 *         Duration.ofDays(7), "feature_a", "feature_b")
 *     .build();
 * SqlExport export = set.exportParquet(Path.of("exports/train.parquet"));
 * }</pre>
 *
 * <p>Output columns: every label column, then {@code <name>__<column>} for each feature column.
 * Rows are ordered by the label's entity and time. A label without a feature row at or before
 * its time (a late feature, a missing entity, or a value older than the TTL) gets nulls. When a
 * feature table has several rows for one entity at the same time, one of them is used (which one
 * is not defined); deduplicate such tables first. Runs as DuckDB {@code ASOF LEFT JOIN}s. The
 * semantics are those of {@link TrainingSetDefinition}: the same definition runs on Spark too.
 */
public final class TrainingSet {
  private final TrainingSetDefinition definition;
  private final SqlQuery query;
  private final String sql;

  private TrainingSet(TrainingSetDefinition definition, SqlQuery query, String sql) {
    this.definition = definition;
    this.query = query;
    this.sql = sql;
  }

  /** What this training set is made of; the same definition runs on other engines too. */
  public TrainingSetDefinition definition() {
    return definition;
  }

  /** The generated SQL (relations {@code labels} and {@code f_<name>}). */
  public String sql() {
    return sql;
  }

  /** The training set as a query, to run, export or refine with a timeout. */
  public SqlQuery query() {
    return query;
  }

  public SqlResult execute() {
    return query.execute();
  }

  public List<Map<String, Object>> toList() {
    return query.toList();
  }

  /**
   * Writes the training set as Parquet with its lineage: every table's snapshot id, filter and
   * columns, and the set's parameters (label key and time columns; per feature table its key,
   * time, TTL and columns).
   */
  public SqlExport exportParquet(Path file) {
    return query.exportParquet(file);
  }

  /**
   * Writes the training set to {@code exports/<name>.parquet} in the store's bucket, with the same
   * lineage as {@link #exportParquet(Path)}; see {@link SqlQuery#exportToBucket(String)}.
   */
  public SqlExport exportToBucket(String name) {
    return query.exportToBucket(name);
  }

  /**
   * The training set of {@code definition} on {@code engine}: the SQL of its as-of joins, and the
   * definition's parameters in the lineage of its exports.
   */
  static TrainingSet of(DuckEngine engine, TrainingSetDefinition definition) {
    TrainingSetDefinition.Labels labels = definition.labels();
    String labelEntity = labels.entityColumn();
    String labelTime = labels.timeColumn();
    StringBuilder select = new StringBuilder("SELECT l.*");
    StringBuilder from = new StringBuilder(" FROM " + TrainingSetLineage.LABELS_RELATION + " l");
    for (TrainingSetDefinition.Features f : definition.features()) {
      String alias = identifier(TrainingSetLineage.relation(f));
      String time = alias + "." + identifier(f.timeColumn());
      for (String column : f.columns()) {
        String value = alias + "." + identifier(column);
        select.append(", ");
        if (f.ttl().isEmpty()) {
          select.append(value);
        } else {
          select.append("CASE WHEN ").append(time).append(" >= l.").append(identifier(labelTime))
              .append(" - INTERVAL '").append(f.ttl().get().toNanos() / 1000).append(" microseconds' THEN ")
              .append(value).append(" END");
        }
        select.append(" AS ").append(identifier(TrainingSetDefinition.outputColumn(f, column)));
      }
      from.append(" ASOF LEFT JOIN (SELECT ").append(identifier(f.entityColumn())).append(", ")
          .append(identifier(f.timeColumn()));
      for (String column : f.columns()) {
        if (!column.equals(f.entityColumn()) && !column.equals(f.timeColumn())) {
          from.append(", ").append(identifier(column));
        }
      }
      from.append(" FROM ").append(alias).append(") ").append(alias)
          .append(" ON l.").append(identifier(labelEntity)).append(" = ").append(alias).append(".")
          .append(identifier(f.entityColumn())).append(" AND l.").append(identifier(labelTime)).append(" >= ")
          .append(time);
    }
    String sql = select + from.toString() + " ORDER BY l." + identifier(labelEntity) + ", l." + identifier(labelTime);
    SqlQuery query = ((DuckSqlQuery) engine.query(sql))
        .withLineageParameters(TrainingSetLineage.parameters(definition).toString())
        .table(TrainingSetLineage.LABELS_RELATION, labels.version());
    for (TrainingSetDefinition.Features f : definition.features()) {
      query = query.table(TrainingSetLineage.relation(f), f.version());
    }
    return new TrainingSet(definition, query, sql);
  }

  /**
   * Collects the labels and feature tables: a {@link TrainingSetDefinition.Builder} bound to an
   * engine. To run one definition on several engines, build a {@link TrainingSetDefinition} and
   * pass it to {@link SqlEngine#trainingSet(TrainingSetDefinition)}.
   */
  public static final class Builder {
    private final DuckEngine engine;
    private final TrainingSetDefinition.Builder definition = TrainingSetDefinition.builder();

    Builder(DuckEngine engine) {
      this.engine = engine;
    }

    /**
     * The labels.
     *
     * @deprecated use {@link #labels(TimeTravelQuery, String, String)}; removed in the next release
     */
    @Deprecated
    public Builder labels(TableVersion version, String entityColumn, String timeColumn) {
      return labels(InvalidArgumentException.requireNonNull(version, "build training set", "labels").toQuery(), entityColumn, timeColumn);
    }

    /**
     * A feature table.
     *
     * @deprecated use {@link #features(String, TimeTravelQuery, String, String, Duration, String...)};
     *     removed in the next release
     */
    @Deprecated
    public Builder features(String name, TableVersion version, String entityColumn, String timeColumn, Duration ttl,
        String... columns) {
      return features(name, InvalidArgumentException.requireNonNull(version, "add feature table", "version").toQuery(), entityColumn, timeColumn, ttl,
          columns);
    }

    /** See {@link TrainingSetDefinition.Builder#labels}. */
    public Builder labels(TimeTravelQuery version, String entityColumn, String timeColumn) {
      definition.labels(version, entityColumn, timeColumn);
      return this;
    }

    /** See {@link TrainingSetDefinition.Builder#features}. */
    public Builder features(String name, TimeTravelQuery version, String entityColumn, String timeColumn,
        Duration ttl, String... columns) {
      definition.features(name, version, entityColumn, timeColumn, ttl, columns);
      return this;
    }

    public TrainingSet build() {
      return engine.trainingSet(definition.build());
    }
  }
}
