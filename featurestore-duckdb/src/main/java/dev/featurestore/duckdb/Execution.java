package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import dev.featurestore.core.storage.LocalFileCache;
import dev.featurestore.core.storage.TieredFileIO;

import dev.featurestore.FeatureStoreException;
import dev.featurestore.StorageException;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.base.Errors;
import dev.featurestore.duckdb.ScanPlanner.PlannedScan;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.duckdb.DuckDBConnection;

/**
 * One query's life: check the SQL, plan every relation, fetch remote files into the cache (held
 * until the query closes), register the relations on a fresh connection, then run statements.
 * Cancellation (by the caller, a timeout or the engine closing) is checked between the phases
 * and interrupts DuckDB while a statement runs.
 */
final class Execution implements AutoCloseable {
  private final DuckEngine engine;
  private final String sql;
  private final Map<String, TimeTravelQuery> relations;
  private final Duration timeout;
  private final List<LocalFileCache.Lease> leases = new ArrayList<>();
  private final List<TableScanStats> tableStats = new ArrayList<>();
  private final List<PlannedScan> scans = new ArrayList<>();
  private DuckDBConnection connection;
  private ScheduledFuture<?> timeoutTask;
  private volatile Statement statement;
  private volatile boolean cancelled = false;
  private volatile boolean timedOut = false;
  private boolean closed = false;
  private long planningNanos = 0;
  private long fetchNanos = 0;
  private java.nio.file.Path fallbackDirectory;

  Execution(DuckEngine engine, String sql, Map<String, TimeTravelQuery> relations, Duration timeout) {
    this.engine = engine;
    this.sql = sql;
    this.relations = relations;
    this.timeout = timeout;
  }

  /** Runs every phase up to a connection where the relations are registered; closes itself on failure. */
  Execution prepare() {
    engine.started(this);
    try {
      if (timeout != null) {
        timeoutTask = engine.timer().schedule(() -> cancel(true), timeout.toNanos(), TimeUnit.NANOSECONDS);
      }
      connection = engine.newConnection();
      List<MetadataRelations.Name> metadata = engine.verdicts().check(connection, sql, relations.keySet(),
          engine.limits());
      long start = System.nanoTime();
      for (Map.Entry<String, TimeTravelQuery> relation : relations.entrySet()) {
        TimeTravelQuery version = relation.getValue();
        try {
          scans.add(ScanPlanner.plan(version, engine.plans()));
        } catch (RuntimeException e) {
          throw Errors.translate(e, "plan scan of table " + version.table());
        }
        checkCancelled();
      }
      planningNanos = System.nanoTime() - start;
      start = System.nanoTime();
      List<Map<String, String>> paths = new ArrayList<>();
      for (int i = 0; i < scans.size(); i++) {
        paths.add(fetch(scans.get(i), i));
        checkCancelled();
      }
      for (int i = 0; i < scans.size(); i++) {
        PlannedScan scan = scans.get(i);
        Map<String, String> rewritten;
        try {
          // the directory only when a file needs the rewrite: most queries need none
          rewritten = NestedFallback.rewrite(scan, Relations.readFields(scan).values(), paths.get(i),
              this::fallbackDirectory);
        } catch (RuntimeException e) {
          throw Errors.translate(e, "read table " + scan.tableId());
        }
        paths.get(i).putAll(rewritten);
        TableScanStats s = tableStats.get(i);
        tableStats.set(i, new TableScanStats(s.name(), s.table(), s.snapshotId(), s.totalDataFiles(),
            s.plannedDataFiles(), s.plannedDeleteFiles(), s.prunedByPartition(), s.prunedByColumnStats(),
            s.plannedBytes(), s.filesFromCache(), s.filesFetched(), s.bytesFetched(), s.planningTime(),
            rewritten.size()));
        checkCancelled();
      }
      fetchNanos = System.nanoTime() - start;
      int index = 0;
      for (Map.Entry<String, TimeTravelQuery> relation : relations.entrySet()) {
        PlannedScan scan = scans.get(index);
        Map<String, String> local = paths.get(index);
        try {
          Relations.register(connection, relation.getKey(), scan, location -> {
            String path = local.get(location);
            if (path == null) {
              throw new InvalidStateException("Cannot find local file: not fetched: " + location);
            }
            return path;
          }, index);
        } catch (RuntimeException e) {
          throw Errors.translate(e, "read table " + scan.tableId());
        }
        index++;
        checkCancelled();
      }
      for (MetadataRelations.Name name : metadata) {
        try {
          MetadataRelations.register(connection, engine.store(), name, fallbackDirectory());
        } catch (RuntimeException e) {
          throw Errors.translate(e, "read metadata table " + name.text());
        }
        checkCancelled();
      }
      return this;
    } catch (SQLException e) {
      RuntimeException translated = translate(e);
      close();
      throw translated;
    } catch (RuntimeException e) {
      close();
      if (cancelled && !(e instanceof QueryCancelledException)) {
        throw cancelledException(e);
      }
      throw e;
    }
  }

  /**
   * Local paths of every data and delete file (equality, positional, deletion-vector Puffin
   * files), fetching remote ones into the cache, so a warm query reads nothing remote but metadata.
   */
  private Map<String, String> fetch(PlannedScan scan, int index) {
    Map<String, String> local = new HashMap<>();
    List<String> remote = new ArrayList<>();
    java.util.Set<String> locations = new java.util.LinkedHashSet<>();
    for (FileScanTask task : scan.tasks()) {
      locations.add(task.file().location());
    }
    for (DeleteFile delete : scan.deleteFiles()) {
      locations.add(delete.location());
    }
    // cold files (and hot paths whose file tiering moved) are read from the store's cold cache,
    // so a cold file is cached once however it is read; the rest (a warehouse bucket) from ours
    Optional<TieredFileIO> tier = engine.coldTier();
    Map<String, String> cold = new java.util.LinkedHashMap<>();
    for (String location : locations) {
      Optional<java.nio.file.Path> path = engine.readableLocally(location);
      if (path.isPresent()) {
        local.put(location, path.get().toString());
      } else if (tier.isPresent() && tier.get().isCold(location)) {
        cold.put(location, location);
      } else if (tier.isPresent() && DuckEngine.localPath(location).isPresent()
          && tier.get().coldLocation(location).isPresent()) {
        cold.put(location, tier.get().coldLocation(location).get()); // a local hot file that was moved
      } else {
        remote.add(location);
      }
    }
    int fromCache = 0;
    int fetched = 0;
    long bytes = 0;
    if (!cold.isEmpty()) {
      LocalFileCache.Lease lease = tier.get().leaseCold(List.copyOf(new java.util.LinkedHashSet<>(cold.values())));
      leases.add(lease);
      cold.forEach((location, coldLocation) -> local.put(location, lease.path(coldLocation).toString()));
      fromCache += lease.filesFromCache();
      fetched += lease.filesFetched();
      bytes += lease.bytesFetched();
    }
    if (!remote.isEmpty()) {
      LocalFileCache.Lease lease = engine.cache().acquire(remote, scan.table().io());
      leases.add(lease);
      for (String location : remote) {
        local.put(location, lease.path(location).toString());
      }
      fromCache += lease.filesFromCache();
      fetched += lease.filesFetched();
      bytes += lease.bytesFetched();
    }
    long deleteBytes = scan.deleteFiles().stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
    tableStats.add(new TableScanStats(relationName(index), scan.tableId(), scan.snapshotId(),
        scan.totalDataFiles(), scan.tasks().size(), scan.deleteFiles().size(), scan.prunedByPartition(),
        scan.prunedByStats(), scan.dataBytes() + deleteBytes, fromCache, fetched, bytes,
        Duration.ofNanos(scan.planningNanos()), 0));
    return local;
  }

  /** Where files read through Iceberg are rewritten for this query; deleted when it closes. */
  private java.nio.file.Path fallbackDirectory() {
    if (fallbackDirectory == null) {
      fallbackDirectory = engine.workDirectory().resolve("tmp").resolve("fallback-" + java.util.UUID.randomUUID());
      try {
        java.nio.file.Files.createDirectories(fallbackDirectory);
      } catch (java.io.IOException e) {
        throw new StorageException("Cannot create directory: " + e.getMessage() + ": " + fallbackDirectory, e);
      }
    }
    return fallbackDirectory;
  }

  private String relationName(int index) {
    return new ArrayList<>(relations.keySet()).get(index);
  }

  List<PlannedScan> scans() {
    return scans;
  }

  List<TableScanStats> tableStats() {
    return tableStats;
  }

  Duration planningTime() {
    return Duration.ofNanos(planningNanos);
  }

  Duration fetchTime() {
    return Duration.ofNanos(fetchNanos);
  }

  String sql() {
    return sql;
  }

  DuckDBConnection connection() {
    return connection;
  }

  /** A statement whose run {@link #cancel} interrupts. */
  Statement statement() throws SQLException {
    checkCancelled();
    Statement created = connection.createStatement();
    statement = created;
    return created;
  }

  void cancel(boolean byTimeout) {
    if (cancelled) {
      return;
    }
    timedOut = byTimeout;
    cancelled = true;
    Statement current = statement;
    if (current != null) {
      try {
        current.cancel();
      } catch (SQLException | RuntimeException e) {
        // the statement finished or closed meanwhile
      }
    }
  }

  void checkCancelled() {
    if (cancelled) {
      throw cancelledException(null);
    }
  }

  private QueryCancelledException cancelledException(Throwable cause) {
    return timedOut
        ? new QueryCancelledException("Cannot run query: timed out after " + timeout, true, cause)
        : new QueryCancelledException("Cannot run query: cancelled", false, cause);
  }

  /** DuckDB's error classes to the library's exceptions. */
  RuntimeException translate(SQLException e) {
    String message = String.valueOf(e.getMessage());
    if (cancelled || message.contains("INTERRUPT") || message.contains("Interrupted")) {
      return cancelledException(e);
    }
    String firstLine = message.lines().findFirst().orElse(message);
    if (message.startsWith("Out of Memory Error")) {
      return new QueryOutOfMemoryException("Cannot run query: out of memory: limit " + engine.limits().memoryLimit()
          + ": " + firstLine, e);
    }
    if (message.startsWith("Invalid Input Error: Invalid result set")) {
      // with streamed results DuckDB reports an operator's out-of-memory only as this
      return new QueryOutOfMemoryException("Cannot run query: out of memory: limit " + engine.limits().memoryLimit()
          + ": DuckDB reported \"Invalid result set\" while streaming, which is how it reports running out of memory", e);
    }
    if (message.startsWith("Permission Error")) {
      return new SqlRefusedException("Cannot run query: access refused: " + firstLine, e);
    }
    if (message.startsWith("IO Error")) {
      return new StorageException("Cannot run query: storage failed: " + firstLine, e);
    }
    if (message.startsWith("Parser Error") || message.startsWith("Binder Error") || message.startsWith("Catalog Error")
        || message.startsWith("Conversion Error") || message.startsWith("Invalid Input Error")
        || message.startsWith("Not implemented Error") || message.startsWith("Out of Range Error")
        || message.startsWith("Invalid Error") || message.startsWith("Constraint Error")) {
      return new InvalidSqlException("Cannot run query: " + firstLine, e);
    }
    return new FeatureStoreException("Cannot run query: " + firstLine, e);
  }

  private void deleteFallbackFiles() {
    if (fallbackDirectory == null) {
      return;
    }
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(fallbackDirectory)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      // best effort: the engine's tmp directory
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (timeoutTask != null) {
      timeoutTask.cancel(false);
    }
    try {
      Statement current = statement;
      if (current != null) {
        current.close();
      }
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException e) {
      // closing a connection DuckDB already released: nothing left to free
    } finally {
      for (int i = leases.size() - 1; i >= 0; i--) {
        leases.get(i).close();
      }
      deleteFallbackFiles();
      engine.finished(this);
    }
  }
}
