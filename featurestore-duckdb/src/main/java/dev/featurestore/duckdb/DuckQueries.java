package dev.featurestore.duckdb;


import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Opens the DuckDB query adapter for a store.
 *
 * <pre>{@code
 * try (FeatureStore store = FeatureStore.openLocal(Path.of("my-store"));
 *      SqlEngine sql = DuckQueries.builder(store).threads(2).memoryLimit("1GB").build()) {
 *   List<Map<String, Object>> rows = sql.query("SELECT count(*) AS n FROM ev")
 *       .table("ev", store.table("features.feature_events"))
 *       .toList();
 * }
 * }</pre>
 */
public final class DuckQueries {
  /** The default cap on the length of SQL text, in characters: 1,000,000 (see {@link Builder#maxSqlLength}). */
  public static final int DEFAULT_MAX_SQL_LENGTH = 1_000_000;

  private DuckQueries() {}

  /** An engine with the default settings (2 threads, 1GB memory, 10 GiB cache). */
  public static SqlEngine open(FeatureStore store) {
    return builder(store).build();
  }

  public static Builder builder(FeatureStore store) {
    return new Builder(store);
  }

  /** Settings of one engine; each is checked where it is set. */
  public static final class Builder {
    private final FeatureStore store;
    private int threads = 2;
    private String memoryLimit = "1GB";
    private Path workDirectory;
    private long cacheMaxBytes = 10L << 30;
    private int fetchThreads = 4;
    private Duration defaultTimeout;
    private int maxSqlLength = DEFAULT_MAX_SQL_LENGTH;

    private Builder(FeatureStore store) {
      this.store = InvalidArgumentException.requireNonNull(store, "build DuckDB engine", "store");
    }

    /** DuckDB worker threads (default 2). */
    public Builder threads(int value) {
      InvalidArgumentException.check(value >= 1, "Cannot set threads: must be at least 1: %s", value);
      this.threads = value;
      return this;
    }

    /** DuckDB's memory limit, as DuckDB writes it: "512MB", "2GB" (default 1GB). */
    public Builder memoryLimit(String value) {
      InvalidArgumentException.requireNonNull(value, "set memory limit", "memoryLimit");
      InvalidArgumentException.check(MemorySizes.isSize(value),
          "Cannot set memory limit: expected a size such as 512MB or 2GB: %s", value);
      this.memoryLimit = value;
      return this;
    }

    /**
     * Where the engine keeps its file cache, DuckDB's temporary files and exports in progress
     * (default {@code <store root>/duckdb}, or a new temporary directory for stores without a
     * root, deleted on close). User SQL can read nothing outside this directory and the local
     * warehouse.
     *
     * <p>The engine owns the directory until it is closed (an exclusive file lock): another engine,
     * in this or another process, on the same store root would otherwise evict cached files this
     * one's queries read. When the default directory is in use, the engine works in a private
     * directory {@code <store root>/duckdb/private/<id>}, deleted on close; a directory set here
     * that is in use makes {@link #build()} fail with {@link dev.featurestore.InvalidStateException}
     * ({@code Cannot open DuckDB engine: directory in use by another store: <dir>}).
     */
    public Builder workDirectory(Path value) {
      this.workDirectory = InvalidArgumentException.requireNonNull(value, "set work directory", "workDirectory");
      return this;
    }

    /** The cache's size bound in bytes (default 10 GiB). */
    public Builder cacheMaxBytes(long value) {
      InvalidArgumentException.check(value >= 0, "Cannot set cache size: must not be negative: %s", value);
      this.cacheMaxBytes = value;
      return this;
    }

    /** Parallel fetches of remote files (default 4). */
    public Builder fetchThreads(int value) {
      InvalidArgumentException.check(value >= 1, "Cannot set fetch threads: must be at least 1: %s", value);
      this.fetchThreads = value;
      return this;
    }

    /** A timeout for every query that sets none. */
    public Builder defaultTimeout(Duration value) {
      InvalidArgumentException.requireNonNull(value, "set timeout", "defaultTimeout");
      InvalidArgumentException.check(!value.isNegative() && !value.isZero(),
          "Cannot set timeout: must be positive: %s", value);
      this.defaultTimeout = value;
      return this;
    }

    /**
     * The longest SQL text a query may have, in characters (default {@value
     * DuckQueries#DEFAULT_MAX_SQL_LENGTH}). DuckDB's parser allocates outside its memory limit,
     * roughly 500 bytes per character of SQL (10 MB of {@code IN} literals took 5.3 GB), so longer
     * text is refused before it is parsed. Pass large value lists as a table instead.
     */
    public Builder maxSqlLength(int value) {
      InvalidArgumentException.check(value >= 1, "Cannot set max SQL length: must be at least 1: %s", value);
      this.maxSqlLength = value;
      return this;
    }

    /**
     * Opens the database.
     *
     * @throws dev.featurestore.InvalidStateException if the work directory set with
     *     {@link #workDirectory(Path)} is in use by another open engine
     */
    public SqlEngine build() {
      return new DuckEngine(store, threads, memoryLimit, Optional.ofNullable(workDirectory), cacheMaxBytes,
          fetchThreads, Optional.ofNullable(defaultTimeout), maxSqlLength);
    }
  }
}
