package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.storage.LocalFileCache;
import dev.featurestore.core.storage.OwnedDirectory;
import dev.featurestore.core.storage.TieredFileIO;

import static java.util.Objects.requireNonNull;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.iceberg.io.FileIO;
import org.duckdb.DuckDBConnection;

/**
 * The engine: one in-memory DuckDB opened with {@link Properties} (memory, threads, temporary
 * directory, no extension auto-install or auto-load, external access limited to the work and
 * warehouse directories, then the configuration locked), a file cache, a fetch pool and a timer
 * for timeouts. Every query runs on its own {@code duplicate()} connection.
 *
 * <p>The engine owns its work directory ({@link OwnedDirectory}) until closed: the default
 * {@code <store root>/duckdb}, or {@code <store root>/duckdb/private/<id>} (deleted on close) while
 * another engine owns that; a directory the user named must be free.
 */
final class DuckEngine implements SqlEngine {
  private final FeatureStore store;
  private final OwnedDirectory owned;
  private final Path workDirectory;
  private final List<Path> readableRoots;
  private final DuckDBConnection root;
  private final LocalFileCache cache;
  private final Optional<TieredFileIO> coldTier;
  private final ExecutorService fetchers;
  private final ScheduledExecutorService timer;
  private final Optional<Duration> defaultTimeout;
  private final Set<Execution> running = ConcurrentHashMap.newKeySet();
  private final ScanPlanner.PlanCache plans = new ScanPlanner.PlanCache(64, 100_000);
  private final SqlGuard.Limits limits;
  private final SqlGuard.Verdicts verdicts = new SqlGuard.Verdicts(128, 16_384);
  private volatile boolean closed = false;

  DuckEngine(FeatureStore store, int threads, String memoryLimit, Optional<Path> work, long cacheMaxBytes,
      int fetchThreads, Optional<Duration> defaultTimeout, int maxSqlLength) {
    this.store = requireNonNull(store, "store is null");
    this.limits = new SqlGuard.Limits(maxSqlLength, memoryLimit, MemorySizes.parse(memoryLimit));
    this.defaultTimeout = defaultTimeout;
    // the engine owns its work directory: another engine on the same store root (another process,
    // or another store in this JVM) gets a private one under the default directory; a directory
    // the user named that is in use is refused
    if (work.isPresent()) {
      this.owned = OwnedDirectory.claim(work.get(), "DuckDB engine");
    } else if (store.config().root().isPresent()) {
      this.owned = OwnedDirectory.claimOrPrivate(store.config().root().get().resolve("duckdb"), "DuckDB engine");
    } else {
      this.owned = OwnedDirectory.temporary("featurestore-duckdb", "DuckDB engine");
    }
    this.workDirectory = owned.path();
    try {
      Files.createDirectories(workDirectory.resolve("tmp"));
      Files.createDirectories(workDirectory.resolve("exports"));
    } catch (IOException e) {
      owned.close();
      throw new StorageException("Cannot open DuckDB engine: cannot create work directory: " + e.getMessage(), e);
    }
    List<Path> roots = new ArrayList<>();
    roots.add(workDirectory);
    store.config().warehouseLocation().flatMap(DuckEngine::localPath).ifPresent(roots::add);
    this.coldTier = store.config().coldStorage().isPresent() ? Optional.of(store.unwrap(TieredFileIO.class))
        : Optional.empty();
    coldTier.ifPresent(tier -> roots.add(tier.cacheDirectory()));
    this.readableRoots = List.copyOf(roots);
    this.fetchers = Executors.newFixedThreadPool(fetchThreads, daemon("featurestore-duckdb-fetch"));
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("featurestore-duckdb-timeout"));
    try {
      this.cache = new LocalFileCache(workDirectory.resolve("cache"), cacheMaxBytes, fetchers);
    } catch (RuntimeException e) {
      fetchers.shutdownNow();
      timer.shutdownNow();
      owned.close();
      throw e;
    }
    Properties properties = new Properties();
    properties.setProperty("memory_limit", memoryLimit);
    properties.setProperty("threads", Integer.toString(threads));
    properties.setProperty("temp_directory", workDirectory.resolve("tmp").toString());
    properties.setProperty("autoinstall_known_extensions", "false");
    properties.setProperty("autoload_known_extensions", "false");
    properties.setProperty("allowed_directories", readableRoots.stream()
        .map(p -> DuckTypes.quote(p.toString().endsWith("/") ? p.toString() : p + "/"))
        .collect(Collectors.joining(", ", "[", "]")));
    properties.setProperty("enable_external_access", "false");
    properties.setProperty("jdbc_stream_results", "true");
    // read_parquet with an explicit schema (how relations map field ids) estimates ~1 row, which
    // made DuckDB rewrite every ASOF join (training sets) into a nested loop join over all rows
    properties.setProperty("asof_loop_join_threshold", "0");
    try {
      this.root = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:", properties);
      try (Statement statement = root.createStatement()) {
        statement.execute("SET TimeZone = 'UTC'");
        // data files are immutable (a location is never rewritten): keep their Parquet footers
        // between queries (a parquet extension option, so it cannot be set when the database opens)
        statement.execute("SET parquet_metadata_cache = true");
        statement.execute("SET lock_configuration = true");
      }
    } catch (SQLException e) {
      fetchers.shutdownNow();
      timer.shutdownNow();
      cache.close();
      owned.close();
      throw new FeatureStoreException("Cannot open DuckDB engine: " + e.getMessage(), e);
    }
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + n.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** A local path for a {@code file:} URI or an absolute path. */
  static Optional<Path> localPath(String location) {
    if (location.startsWith("/")) {
      return Optional.of(Path.of(location).normalize());
    }
    if (location.startsWith("file:")) {
      return Optional.of(Path.of(URI.create(location.startsWith("file://") || location.startsWith("file:/")
          ? location.replace(" ", "%20") : location)).normalize());
    }
    return Optional.empty();
  }

  /**
   * A local file DuckDB may read directly, or empty if the file must go through the cache. A
   * missing local file goes through the cache too: with a cold tier, the store's FileIO reads a hot
   * path whose file was moved from its cold copy (older snapshots still name the hot path).
   */
  Optional<Path> readableLocally(String location) {
    Optional<Path> path = localPath(location);
    if (path.isPresent() && readableRoots.stream().anyMatch(r -> path.get().startsWith(r)) && Files.exists(path.get())) {
      return path;
    }
    return Optional.empty();
  }

  @Override
  public SqlQuery query(String sql) {
    InvalidArgumentException.requireNonNull(sql, "run query", "sql");
    checkOpen();
    return new DuckSqlQuery(this, sql, new java.util.LinkedHashMap<>(), defaultTimeout.orElse(null));
  }

  @Override
  public TrainingSet.Builder trainingSet() {
    checkOpen();
    return new TrainingSet.Builder(this);
  }

  @Override
  public TrainingSet trainingSet(dev.featurestore.TrainingSetDefinition definition) {
    InvalidArgumentException.requireNonNull(definition, "build training set", "definition");
    checkOpen();
    return TrainingSet.of(this, definition);
  }

  @Override
  public CacheStats cacheStats() {
    LocalFileCache.Stats stats = cache.stats();
    return new CacheStats(stats.files(), stats.bytes(), stats.maxBytes(), stats.hits(), stats.misses(),
        stats.bytesFetched(), stats.evictions());
  }

  /** The store's cold tier, whose cache holds the cold files queries read; empty without one. */
  Optional<TieredFileIO> coldTier() {
    return coldTier;
  }

  SqlGuard.Limits limits() {
    return limits;
  }

  SqlGuard.Verdicts verdicts() {
    return verdicts;
  }

  FeatureStore store() {
    return store;
  }

  LocalFileCache cache() {
    return cache;
  }

  ScanPlanner.PlanCache plans() {
    return plans;
  }

  FileIO fileIO() {
    return store.unwrap(FileIO.class);
  }

  Path workDirectory() {
    return workDirectory;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  DuckDBConnection newConnection() throws SQLException {
    checkOpen();
    return (DuckDBConnection) root.duplicate();
  }

  void started(Execution execution) {
    running.add(execution);
    if (closed) {
      execution.cancel(false);
    }
  }

  void finished(Execution execution) {
    running.remove(execution);
  }

  void checkOpen() {
    if (closed) {
      throw new InvalidStateException("Cannot run query: the DuckDB engine is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Execution execution : List.copyOf(running)) {
      execution.cancel(false);
      execution.close();
    }
    timer.shutdownNow();
    fetchers.shutdownNow();
    try {
      root.close();
    } catch (SQLException e) {
      throw new FeatureStoreException("Cannot close DuckDB engine: " + e.getMessage(), e);
    } finally {
      // after DuckDB, which deletes its temporary files on close
      cache.close();
      owned.close();
    }
  }

  @Override
  public String toString() {
    return "SqlEngine{workDirectory=" + workDirectory + ", cache=" + cache.stats() + "}";
  }
}
