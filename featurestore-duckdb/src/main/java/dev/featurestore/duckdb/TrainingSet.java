package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckTypes.identifier;

import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.TimeTravelQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * is not defined); deduplicate such tables first. Runs as DuckDB {@code ASOF LEFT JOIN}s.
 */
public final class TrainingSet {
  private final SqlQuery query;
  private final String sql;

  private TrainingSet(SqlQuery query, String sql) {
    this.query = query;
    this.sql = sql;
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

  /** Collects the labels and feature tables. */
  public static final class Builder {
    private record Features(String name, TimeTravelQuery version, String entity, String time, Duration ttl,
        List<String> columns) {}

    private final DuckEngine engine;
    private TimeTravelQuery labels;
    private String labelEntity;
    private String labelTime;
    private final List<Features> features = new ArrayList<>();

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

    /** The labels: a version of a table with an entity key column and an event time column. */
    public Builder labels(TimeTravelQuery version, String entityColumn, String timeColumn) {
      this.labels = InvalidArgumentException.requireNonNull(version, "build training set", "labels");
      this.labelEntity = column(entityColumn, "entity column");
      this.labelTime = column(timeColumn, "time column");
      return this;
    }

    /**
     * A feature table: its key and time columns, an optional time-to-live (null for none), and the
     * feature columns to take.
     */
    public Builder features(String name, TimeTravelQuery version, String entityColumn, String timeColumn,
        Duration ttl, String... columns) {
      InvalidArgumentException.requireNonNull(name, "add feature table", "name");
      InvalidArgumentException.requireNonNull(version, "add feature table", "version");
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]*") || name.startsWith("__")) {
        throw new InvalidArgumentException("Cannot add feature table: not a plain SQL identifier: " + FeatureStoreException.printable(name));
      }
      if (features.stream().anyMatch(f -> f.name().equalsIgnoreCase(name))) {
        throw new InvalidArgumentException("Cannot add feature table: name already given: " + name);
      }
      if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
        throw new InvalidArgumentException("Cannot add feature table: TTL must be positive: " + ttl);
      }
      InvalidArgumentException.requireNonNull(columns, "add feature table", "columns");
      if (columns.length == 0) {
        throw new InvalidArgumentException("Cannot add feature table: no feature column given: " + name);
      }
      List<String> list = new ArrayList<>();
      for (String c : columns) {
        list.add(column(c, "feature column"));
      }
      features.add(new Features(name, version, column(entityColumn, "entity column"),
          column(timeColumn, "time column"), ttl, List.copyOf(list)));
      return this;
    }

    private static String column(String value, String what) {
      InvalidArgumentException.requireNonNull(value, "build training set", what);
      if (value.isBlank()) {
        throw new InvalidArgumentException("Cannot build training set: blank " + what);
      }
      return value;
    }

    public TrainingSet build() {
      if (labels == null) {
        throw new InvalidStateException("Cannot build training set: no labels given");
      }
      if (features.isEmpty()) {
        throw new InvalidStateException("Cannot build training set: no feature table given");
      }
      StringBuilder select = new StringBuilder("SELECT l.*");
      StringBuilder from = new StringBuilder(" FROM labels l");
      for (Features f : features) {
        String alias = identifier("f_" + f.name());
        String time = alias + "." + identifier(f.time());
        for (String column : f.columns()) {
          String value = alias + "." + identifier(column);
          select.append(", ");
          if (f.ttl() == null) {
            select.append(value);
          } else {
            select.append("CASE WHEN ").append(time).append(" >= l.").append(identifier(labelTime))
                .append(" - INTERVAL '").append(f.ttl().toNanos() / 1000).append(" microseconds' THEN ")
                .append(value).append(" END");
          }
          select.append(" AS ").append(identifier(f.name() + "__" + column));
        }
        from.append(" ASOF LEFT JOIN (SELECT ").append(identifier(f.entity())).append(", ")
            .append(identifier(f.time()));
        for (String column : f.columns()) {
          if (!column.equals(f.entity()) && !column.equals(f.time())) {
            from.append(", ").append(identifier(column));
          }
        }
        from.append(" FROM ").append(identifier("f_" + f.name())).append(") ").append(alias)
            .append(" ON l.").append(identifier(labelEntity)).append(" = ").append(alias).append(".")
            .append(identifier(f.entity())).append(" AND l.").append(identifier(labelTime)).append(" >= ")
            .append(time);
      }
      String sql = select + from.toString() + " ORDER BY l." + identifier(labelEntity) + ", l." + identifier(labelTime);
      SqlQuery query = ((DuckSqlQuery) engine.query(sql)).withLineageParameters(parameters())
          .table("labels", labels);
      for (Features f : features) {
        query = query.table("f_" + f.name(), f.version());
      }
      return new TrainingSet(query, sql);
    }

    /** The definition, for the lineage of exports (tables and snapshots are added there). */
    private String parameters() {
      com.fasterxml.jackson.databind.node.ObjectNode root =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      root.put("kind", "training_set");
      root.putObject("labels").put("relation", "labels").put("entity", labelEntity).put("time", labelTime);
      com.fasterxml.jackson.databind.node.ArrayNode list = root.putArray("features");
      for (Features f : features) {
        com.fasterxml.jackson.databind.node.ObjectNode node = list.addObject();
        node.put("name", f.name()).put("relation", "f_" + f.name()).put("entity", f.entity()).put("time", f.time());
        if (f.ttl() == null) {
          node.putNull("ttl");
        } else {
          node.put("ttl", f.ttl().toString());
        }
        com.fasterxml.jackson.databind.node.ArrayNode columns = node.putArray("columns");
        f.columns().forEach(columns::add);
      }
      return root.toString();
    }
  }
}
