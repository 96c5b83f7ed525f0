package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.featurestore.AlreadyExistsException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.storage.s3.Bucket;
import dev.featurestore.core.storage.s3.ObjectUploader;
import dev.featurestore.duckdb.ScanPlanner.PlannedScan;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/** An immutable query: SQL, named versions and a timeout. */
final class DuckSqlQuery implements SqlQuery {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DuckEngine engine;
  private final String sql;
  private final Map<String, TimeTravelQuery> relations;
  private final Duration timeout;
  private final String parameters; // JSON added to the lineage (a training set's definition), or null

  DuckSqlQuery(DuckEngine engine, String sql, Map<String, TimeTravelQuery> relations, Duration timeout) {
    this(engine, sql, relations, timeout, null);
  }

  DuckSqlQuery(DuckEngine engine, String sql, Map<String, TimeTravelQuery> relations, Duration timeout,
      String parameters) {
    this.engine = engine;
    this.sql = sql;
    this.relations = relations;
    this.timeout = timeout;
    this.parameters = parameters;
  }

  /** The same query with {@code json} recorded in its exports' lineage under {@code parameters}. */
  DuckSqlQuery withLineageParameters(String json) {
    return new DuckSqlQuery(engine, sql, relations, timeout, json);
  }

  @Override
  public SqlQuery table(String name, TimeTravelQuery version) {
    InvalidArgumentException.requireNonNull(name, "name table", "name");
    InvalidArgumentException.requireNonNull(version, "name table", "version");
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new InvalidArgumentException("Cannot name table: not a plain SQL identifier: " + FeatureStoreException.printable(name));
    }
    if (name.startsWith("__")) {
      throw new InvalidArgumentException("Cannot name table: names starting with __ are reserved: " + name);
    }
    for (String existing : relations.keySet()) {
      if (existing.equalsIgnoreCase(name)) {
        throw new InvalidArgumentException("Cannot name table: name already given: " + name);
      }
    }
    Map<String, TimeTravelQuery> more = new LinkedHashMap<>(relations);
    more.put(name, version);
    return new DuckSqlQuery(engine, sql, more, timeout, parameters);
  }

  @Override
  public SqlQuery timeout(Duration value) {
    InvalidArgumentException.requireNonNull(value, "set timeout", "timeout");
    if (value.isNegative() || value.isZero()) {
      throw new InvalidArgumentException("Cannot set timeout: must be positive: " + value);
    }
    return new DuckSqlQuery(engine, sql, relations, value, parameters);
  }

  @Override
  public SqlResult execute() {
    engine.checkOpen();
    Execution execution = new Execution(engine, sql, Map.copyOf(relations).isEmpty() ? Map.of()
        : new LinkedHashMap<>(relations), timeout).prepare();
    try {
      long start = System.nanoTime();
      Statement statement = execution.statement();
      ResultSet rs = statement.executeQuery(sql);
      return new DuckSqlResult(execution, rs, System.nanoTime() - start);
    } catch (SQLException e) {
      RuntimeException translated = execution.translate(e);
      execution.close();
      throw translated;
    } catch (RuntimeException e) {
      execution.close();
      throw e;
    }
  }

  @Override
  public SqlExport exportParquet(Path file) {
    InvalidArgumentException.requireNonNull(file, "export query", "file");
    Path target = file.toAbsolutePath().normalize();
    if (Files.exists(target)) {
      throw new AlreadyExistsException("Cannot export query: file exists: " + target);
    }
    engine.checkOpen();
    return writeParquet(target);
  }

  @Override
  public SqlExport exportToBucket(String name) {
    InvalidArgumentException.requireNonNull(name, "export query to bucket", "name");
    ObjectStorage.checkObjectName(name);
    ObjectStorage storage = engine.store().config().objectStorage().orElseThrow(() -> new ValidationException(
        "Cannot export query to bucket: the store is not on object storage, use exportParquet(Path): " + name));
    engine.checkOpen();
    String key = "exports/" + (name.endsWith(".parquet") ? name : name + ".parquet");
    try (Bucket bucket = Bucket.over(storage, engine.fileIO())) {
      bucket.key(key);
      if (bucket.headIfExists(key).isPresent()) {
        throw new AlreadyExistsException("Cannot export query: object already exists: " + key);
      }
      Path local = engine.workDirectory().resolve("exports").resolve("upload-" + UUID.randomUUID() + ".parquet");
      try {
        SqlExport written = writeParquet(local);
        ObjectUploader.upload(bucket, key, local, ObjectUploader.Options.forFile(storage.provider(),
            "application/vnd.apache.parquet", Map.of(), null));
        return new SqlExport(bucket.location(key), written.rows(), written.bytes(), written.lineage(), written.stats());
      } catch (RuntimeException e) {
        throw Errors.translate(e, "export query to " + key);
      } finally {
        deleteQuietly(local);
      }
    }
  }

  private SqlExport writeParquet(Path target) {
    try (Execution execution = new Execution(engine, sql, new LinkedHashMap<>(relations), timeout).prepare()) {
      String lineage = lineage(execution);
      // DuckDB may only write inside the work directory: write there, then move into place
      Path staging = engine.workDirectory().resolve("exports").resolve(UUID.randomUUID() + ".parquet");
      long start = System.nanoTime();
      long rows;
      try (Statement statement = execution.statement()) {
        String copy = "COPY (" + stripTrailingSemicolons(sql) + "\n) TO " + DuckTypes.quote(staging.toString())
            + " (FORMAT parquet, COMPRESSION zstd, KV_METADATA {'featurestore.lineage': " + DuckTypes.quote(lineage) + "})";
        statement.execute(copy);
        rows = updateCount(statement);
      } catch (SQLException e) {
        deleteQuietly(staging);
        throw execution.translate(e);
      }
      long executionNanos = System.nanoTime() - start;
      try {
        Files.createDirectories(target.getParent());
        try {
          Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.copy(staging, target);
          Files.delete(staging);
        }
        long bytes = Files.size(target);
        SqlStats stats = new SqlStats(List.copyOf(execution.tableStats()), rows, execution.planningTime(),
            execution.fetchTime(), Duration.ofNanos(executionNanos));
        return new SqlExport(target.toString(), rows, bytes, lineage, stats);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        deleteQuietly(staging);
        throw new AlreadyExistsException("Cannot export query: file exists: " + target);
      } catch (IOException e) {
        deleteQuietly(staging);
        throw new StorageException("Cannot export query: " + e.getMessage() + ": " + target, e);
      }
    }
  }

  private static long updateCount(Statement statement) throws SQLException {
    long count = statement.getLargeUpdateCount();
    if (count >= 0) {
      return count;
    }
    try (ResultSet rs = statement.getResultSet()) {
      return rs != null && rs.next() ? rs.getLong(1) : -1;
    }
  }

  private String lineage(Execution execution) {
    ObjectNode root = JSON.createObjectNode();
    root.put("sql", sql);
    ArrayNode tables = root.putArray("tables");
    int i = 0;
    for (Map.Entry<String, TimeTravelQuery> relation : relations.entrySet()) {
      PlannedScan scan = execution.scans().get(i++);
      ObjectNode table = tables.addObject();
      table.put("name", relation.getKey());
      table.put("table", scan.tableId().toString());
      table.put("snapshot_id", scan.snapshotId());
      table.put("filter", String.valueOf(relation.getValue().filter()));
      ArrayNode columns = table.putArray("columns");
      scan.columns().forEach(c -> columns.add(c.name()));
    }
    if (parameters != null) {
      try {
        root.set("parameters", JSON.readTree(parameters));
      } catch (java.io.IOException e) {
        throw new InvalidStateException("Cannot write lineage: invalid parameters: " + e.getMessage(), e);
      }
    }
    root.put("exported_at", java.time.Instant.now().toString());
    return root.toString();
  }

  static String stripTrailingSemicolons(String text) {
    String result = text.strip();
    while (result.endsWith(";")) {
      result = result.substring(0, result.length() - 1).strip();
    }
    return result;
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a staging file left behind is in the engine's work directory only
    }
  }

  @Override
  public String toString() {
    return "SqlQuery{sql=" + sql.replaceAll("\\s+", " ")
        + ", tables=" + relations + "}";
  }
}
