package dev.featurestore.duckdb;

import static java.util.Objects.requireNonNull;

import dev.featurestore.FeatureStore;
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

    private Builder(FeatureStore store) {
      this.store = requireNonNull(store, "store is null");
    }

    /** DuckDB worker threads (default 2). */
    public Builder threads(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set threads: must be at least 1: " + value);
      }
      this.threads = value;
      return this;
    }

    /** DuckDB's memory limit, as DuckDB writes it: "512MB", "2GB" (default 1GB). */
    public Builder memoryLimit(String value) {
      requireNonNull(value, "memoryLimit is null");
      if (!value.matches("\\d+(\\.\\d+)?\\s*[KMGT]i?B")) {
        throw new IllegalArgumentException("Cannot set memory limit: expected a size such as 512MB or 2GB: " + value);
      }
      this.memoryLimit = value;
      return this;
    }

    /**
     * Where the engine keeps its file cache, DuckDB's temporary files and exports in progress
     * (default {@code <store root>/duckdb}, or a new temporary directory for stores without a
     * root). User SQL can read nothing outside this directory and the local warehouse.
     */
    public Builder workDirectory(Path value) {
      this.workDirectory = requireNonNull(value, "workDirectory is null");
      return this;
    }

    /** The cache's size bound in bytes (default 10 GiB). */
    public Builder cacheMaxBytes(long value) {
      if (value < 0) {
        throw new IllegalArgumentException("Cannot set cache size: must not be negative: " + value);
      }
      this.cacheMaxBytes = value;
      return this;
    }

    /** Parallel fetches of remote files (default 4). */
    public Builder fetchThreads(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot set fetch threads: must be at least 1: " + value);
      }
      this.fetchThreads = value;
      return this;
    }

    /** A timeout for every query that sets none. */
    public Builder defaultTimeout(Duration value) {
      requireNonNull(value, "defaultTimeout is null");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Cannot set timeout: must be positive: " + value);
      }
      this.defaultTimeout = value;
      return this;
    }

    /** Opens the database. */
    public SqlEngine build() {
      return new DuckEngine(store, threads, memoryLimit, Optional.ofNullable(workDirectory), cacheMaxBytes,
          fetchThreads, Optional.ofNullable(defaultTimeout));
    }
  }
}
