package dev.featurestore;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What an online view holds: for each value of the key column of a feature table, the chosen
 * features of its latest row (highest event time), valid for a time to live. Like a Feast feature
 * view, but embedded: the view is a SQLite file on local disk that the store fills from the table.
 *
 * <pre>{@code
 * OnlineViewDefinition def = OnlineViewDefinition.builder("user_features", TableId.of("features", "events"))
 *     .key("entity_id")
 *     .eventTime("event_time")
 *     .features("feature_a", "feature_b")
 *     .ttl(Duration.ofDays(2))
 *     .refreshEvery(Duration.ofMinutes(1))     // optional: materialize on a schedule
 *     .build();
 * }</pre>
 *
 * <p>Columns are named here and resolved to Iceberg field ids when the view opens: a feature that is
 * renamed later keeps its place in the view.
 */
public final class OnlineViewDefinition {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
  private final String name;
  private final TableId table;
  private final String key;
  private final String eventTime;
  private final List<String> features;
  private final Duration ttl;
  private final Duration refreshEvery;
  private final Path directory;
  private final int readConnections;

  private OnlineViewDefinition(Builder b) {
    this.name = b.name;
    this.table = b.table;
    this.key = b.key;
    this.eventTime = b.eventTime;
    this.features = List.copyOf(b.features);
    this.ttl = b.ttl;
    this.refreshEvery = b.refreshEvery;
    this.directory = b.directory;
    this.readConnections = b.readConnections;
  }

  /**
   * Starts a definition of the view {@code name} (letters, digits, {@code _ . -}; it names the
   * view's file) over {@code table}.
   *
   * @throws InvalidArgumentException if the name is null or not of that form, or the table is null
   */
  public static Builder builder(String name, TableId table) {
    return new Builder(name, table);
  }

  public String name() {
    return name;
  }

  public TableId table() {
    return table;
  }

  /** The entity key column (integer, long, string or uuid). */
  public String key() {
    return key;
  }

  /** The event-time column (timestamp or timestamptz) whose highest value makes a row the latest. */
  public String eventTime() {
    return eventTime;
  }

  /** The features served, in order; empty means every primitive column but the key and event time. */
  public List<String> features() {
    return features;
  }

  /** How long after its event time a value is served; empty: forever. */
  public Optional<Duration> ttl() {
    return Optional.ofNullable(ttl);
  }

  /** How often the store materializes the view by itself; empty: only on demand. */
  public Optional<Duration> refreshEvery() {
    return Optional.ofNullable(refreshEvery);
  }

  /** Where the view's file lives; empty: {@code <store root>/online}. */
  public Optional<Path> directory() {
    return Optional.ofNullable(directory);
  }

  /** The most read connections the view opens (readers beyond that wait for one). */
  public int readConnections() {
    return readConnections;
  }

  public Builder toBuilder() {
    Builder b = new Builder(name, table);
    b.key = key;
    b.eventTime = eventTime;
    b.features.addAll(features);
    b.ttl = ttl;
    b.refreshEvery = refreshEvery;
    b.directory = directory;
    b.readConnections = readConnections;
    return b;
  }

  @Override
  public String toString() {
    return "OnlineViewDefinition{" + name + " on " + table + ", key " + key + ", eventTime " + eventTime
        + ", features " + features + ", ttl " + (ttl == null ? "none" : ttl) + "}";
  }

  /** Options checked where they are set; {@link #build()} checks that key and event time are set. */
  public static final class Builder {
    private final String name;
    private final TableId table;
    private String key;
    private String eventTime;
    private final List<String> features = new ArrayList<>();
    private Duration ttl;
    private Duration refreshEvery;
    private Path directory;
    private int readConnections = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

    private Builder(String name, TableId table) {
      InvalidArgumentException.requireNonNull(name, "define online view", "name");
      InvalidArgumentException.check(NAME.matcher(name).matches(),
          "Cannot define online view: the name must be 1-100 letters, digits, '_', '.' or '-': %s", name);
      this.name = name;
      this.table = InvalidArgumentException.requireNonNull(table, "define online view " + name, "table");
    }

    public Builder key(String column) {
      this.key = InvalidArgumentException.requireNonNull(column, "define online view " + name, "key");
      return this;
    }

    public Builder eventTime(String column) {
      this.eventTime = InvalidArgumentException.requireNonNull(column, "define online view " + name, "eventTime");
      return this;
    }

    /** Adds features to serve, by column name. */
    public Builder features(String... columns) {
      InvalidArgumentException.requireNonNull(columns, "define online view " + name, "features");
      for (String column : columns) {
        InvalidArgumentException.requireNonNull(column, "define online view " + name, "feature");
        InvalidArgumentException.check(!features.contains(column),
            "Cannot define online view %s: feature named twice: %s", name, column);
        features.add(column);
      }
      return this;
    }

    /** Values older than {@code ttl} (by event time, against the store's clock) read as expired. */
    public Builder ttl(Duration ttl) {
      InvalidArgumentException.requireNonNull(ttl, "define online view " + name, "ttl");
      InvalidArgumentException.check(!ttl.isNegative() && !ttl.isZero(),
          "Cannot define online view %s: ttl must be positive: %s", name, ttl);
      this.ttl = ttl;
      return this;
    }

    /** Materializes the view every {@code interval} on a thread of the view (errors are logged). */
    public Builder refreshEvery(Duration interval) {
      InvalidArgumentException.requireNonNull(interval, "define online view " + name, "interval");
      InvalidArgumentException.check(interval.toMillis() >= 10,
          "Cannot define online view %s: refresh interval below 10 ms: %s", name, interval);
      this.refreshEvery = interval;
      return this;
    }

    public Builder directory(Path directory) {
      this.directory = InvalidArgumentException.requireNonNull(directory, "define online view " + name, "directory");
      return this;
    }

    public Builder readConnections(int connections) {
      InvalidArgumentException.check(connections >= 1 && connections <= 256,
          "Cannot define online view %s: read connections must be 1 to 256: %s", name, connections);
      this.readConnections = connections;
      return this;
    }

    /** @throws InvalidArgumentException if the key or the event time is not set, or the event time is the key */
    public OnlineViewDefinition build() {
      InvalidArgumentException.check(key != null, "Cannot define online view %s: no key column: set key(...)", name);
      InvalidArgumentException.check(eventTime != null,
          "Cannot define online view %s: no event-time column: set eventTime(...)", name);
      InvalidArgumentException.check(!key.equals(eventTime),
          "Cannot define online view %s: the key cannot be the event time: %s", name, key);
      InvalidArgumentException.check(!features.contains(key) && !features.contains(eventTime),
          "Cannot define online view %s: key and event time are not features: %s", name, features);
      return new OnlineViewDefinition(this);
    }
  }
}
