package dev.featurestore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a point-in-time correct training set is made of, independent of the engine that builds it:
 * the labels (a version of a table with an entity key and an event time) and feature tables, each
 * with its key and time columns, an optional time-to-live and the feature columns to take. The
 * same definition runs on the embedded DuckDB engine ({@code SqlEngine.trainingSet(definition)})
 * and on Spark ({@code SparkFeatureStore.trainingSet(definition)}), with the same result.
 *
 * <pre>{@code
 * TrainingSetDefinition definition = TrainingSetDefinition.builder()
 *     .labels(labels.query().asOfSnapshot(labelsSnapshot), "entity_id", "label_time")
 *     .features("ev", events.query().asOfSnapshot(featuresSnapshot), "entity_id", "event_time",
 *         Duration.ofDays(7), "feature_a", "feature_b")
 *     .build();
 * }</pre>
 *
 * <p>Semantics, on every engine: for each label row, each feature table contributes its latest row
 * for the same entity whose time is at or before the label's time (an as-of join); the feature
 * values are null when there is no such row (a late feature, a missing entity, a null key or time)
 * or when that row is older than the table's time-to-live. Output columns: every label column,
 * then {@code <name>__<column>} for each feature column ({@link #outputColumn}); rows ordered by the
 * label's entity and time. When a feature table has several rows for one entity at the same time,
 * one of them is used (which one is not defined): deduplicate such tables first. Each table is
 * read at the version its {@link TimeTravelQuery} names (with its column selection and filter), so
 * a training set can be rebuilt exactly later.
 *
 * <p>Immutable and thread-safe.
 */
public final class TrainingSetDefinition {
  /** The labels: a table version, its entity key column and its event time column. */
  public record Labels(TimeTravelQuery version, String entityColumn, String timeColumn) {}

  /**
   * A feature table: the name its output columns are prefixed with, a table version, its entity
   * key and time columns, its time-to-live (empty for none) and the feature columns to take.
   */
  public record Features(String name, TimeTravelQuery version, String entityColumn, String timeColumn,
      Optional<Duration> ttl, List<String> columns) {
    public Features {
      columns = List.copyOf(columns);
    }
  }

  private final Labels labels;
  private final List<Features> features;

  private TrainingSetDefinition(Labels labels, List<Features> features) {
    this.labels = labels;
    this.features = List.copyOf(features);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Labels labels() {
    return labels;
  }

  /** The feature tables, in the order they were added (the order of their output columns). */
  public List<Features> features() {
    return features;
  }

  /** The output column of {@code column} of the feature table {@code features}: {@code <name>__<column>}. */
  public static String outputColumn(Features features, String column) {
    return features.name() + "__" + column;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("TrainingSetDefinition{labels=").append(labels.version().table())
        .append(" (").append(labels.version().version()).append(") by ").append(labels.entityColumn()).append(", ")
        .append(labels.timeColumn());
    for (Features f : features) {
      text.append("; ").append(f.name()).append("=").append(f.version().table()).append(" (")
          .append(f.version().version()).append(") by ").append(f.entityColumn()).append(", ").append(f.timeColumn())
          .append(f.ttl().map(ttl -> ", ttl " + ttl).orElse("")).append(": ").append(f.columns());
    }
    return text.append("}").toString();
  }

  /** Collects the labels and feature tables; each setter checks its arguments. Not thread-safe. */
  public static final class Builder {
    private Labels labels;
    private final List<Features> features = new ArrayList<>();

    private Builder() {}

    /**
     * The labels: a version of a table with an entity key column and an event time column.
     *
     * @throws InvalidArgumentException if an argument is null or a column name is blank
     */
    public Builder labels(TimeTravelQuery version, String entityColumn, String timeColumn) {
      InvalidArgumentException.requireNonNull(version, "build training set", "labels");
      this.labels = new Labels(version, column(entityColumn, "entity column"), column(timeColumn, "time column"));
      return this;
    }

    /**
     * A feature table: its key and time columns, an optional time-to-live (null for none), and the
     * feature columns to take.
     *
     * @throws InvalidArgumentException if the name is not a plain SQL identifier or given twice, the
     *     TTL is not positive, no column is given, or an argument is null or blank
     */
    public Builder features(String name, TimeTravelQuery version, String entityColumn, String timeColumn,
        Duration ttl, String... columns) {
      InvalidArgumentException.requireNonNull(name, "add feature table", "name");
      InvalidArgumentException.requireNonNull(version, "add feature table", "version");
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]*") || name.startsWith("__")) {
        throw new InvalidArgumentException("Cannot add feature table: not a plain SQL identifier: "
            + FeatureStoreException.printable(name));
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
      features.add(new Features(name, version, column(entityColumn, "entity column"), column(timeColumn, "time column"),
          Optional.ofNullable(ttl), list));
      return this;
    }

    private static String column(String value, String what) {
      InvalidArgumentException.requireNonNull(value, "build training set", what);
      if (value.isBlank()) {
        throw new InvalidArgumentException("Cannot build training set: blank " + what);
      }
      return value;
    }

    /**
     * @throws InvalidStateException {@code Cannot build training set: no labels given} or
     *     {@code ... no feature table given}
     */
    public TrainingSetDefinition build() {
      if (labels == null) {
        throw new InvalidStateException("Cannot build training set: no labels given");
      }
      if (features.isEmpty()) {
        throw new InvalidStateException("Cannot build training set: no feature table given");
      }
      return new TrainingSetDefinition(labels, features);
    }
  }
}
