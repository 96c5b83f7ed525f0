package dev.featurestore.core.base;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.MetricsListener;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.util.DateTimeUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's operations log: who did what, when, to which table. Kept in a small table
 * ({@code featurestore_operations}) of the catalog database ({@link CatalogDatabase}), so every
 * process sharing the catalog writes one log; in memory (the last {@value #MEMORY_ENTRIES}) when
 * the catalog has no database the library reaches (REST, a caller's catalog).
 *
 * <p>{@link #record} never throws: the operation it records has already happened. A failed insert
 * is a warning, counted ({@link #failures()}) and reported to the store's {@link MetricsListener}.
 * Times are the store's clock in microseconds, strictly increasing within one log, so the
 * entries of one process read back in the order they were recorded. Thread-safe.
 */
public final class OperationLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OperationLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String TABLE = "featurestore_operations";
  static final int MEMORY_ENTRIES = 10_000;

  /** The columns of the log as a metadata table. */
  public static final Schema SCHEMA = new Schema(
      org.apache.iceberg.types.Types.NestedField.required(1, "recorded_at", org.apache.iceberg.types.Types.TimestampType.withZone()),
      org.apache.iceberg.types.Types.NestedField.required(2, "actor", org.apache.iceberg.types.Types.StringType.get()),
      org.apache.iceberg.types.Types.NestedField.required(3, "operation", org.apache.iceberg.types.Types.StringType.get()),
      org.apache.iceberg.types.Types.NestedField.optional(4, "table_name", org.apache.iceberg.types.Types.StringType.get()),
      org.apache.iceberg.types.Types.NestedField.optional(5, "snapshot_id", org.apache.iceberg.types.Types.LongType.get()),
      org.apache.iceberg.types.Types.NestedField.required(6, "details", org.apache.iceberg.types.Types.StringType.get()));

  private final Optional<CatalogDatabase> database;
  private final String actor;
  private final Clock clock;
  private final Optional<MetricsListener> listener;
  private final Deque<Record> memory = new ArrayDeque<>();
  private final AtomicLong failures = new AtomicLong();
  private Connection connection; // guarded by this
  private long lastMicros = Long.MIN_VALUE; // guarded by this

  private OperationLog(Optional<CatalogDatabase> database, String actor, Clock clock, Optional<MetricsListener> listener) {
    this.database = database;
    this.actor = actor;
    this.clock = clock;
    this.listener = listener;
  }

  /** The log of a store: in its catalog database, or in memory if it has none. */
  public static OperationLog forStore(FeatureStoreConfig config) {
    return new OperationLog(CatalogDatabase.of(config), config.actor(), config.clock(), config.metricsListener());
  }

  /** True when entries go to the catalog database (shared, durable), false when kept in memory. */
  public boolean durable() {
    return database.isPresent();
  }

  /**
   * Records an operation that happened. Never throws.
   *
   * @param operation what was done, a lower-case word ({@code ingest}, {@code rollback}, ...)
   * @param table the table, or null for a store-wide operation
   * @param snapshotId the snapshot the operation made current or created, or null
   * @param details what changed, written as a JSON object
   */
  public void record(String operation, TableId table, Long snapshotId, Map<String, ?> details) {
    try {
      String json = JSON.writeValueAsString(details == null ? Map.of() : new LinkedHashMap<>(details));
      Record entry = GenericRecord.create(SCHEMA);
      synchronized (this) {
        long micros = Math.max(TimeUnit.MILLISECONDS.toMicros(clock.millis()), lastMicros + 1);
        lastMicros = micros;
        entry.set(0, DateTimeUtil.timestamptzFromMicros(micros));
        entry.set(1, actor);
        entry.set(2, operation);
        entry.set(3, table == null ? null : table.toString());
        entry.set(4, snapshotId);
        entry.set(5, json);
        if (database.isEmpty()) {
          memory.addLast(entry);
          while (memory.size() > MEMORY_ENTRIES) {
            memory.removeFirst();
          }
          return;
        }
        insert(micros, operation, table, snapshotId, json);
      }
    } catch (SQLException | JsonProcessingException | RuntimeException e) {
      notRecorded(operation, table, e);
    }
  }

  private void insert(long micros, String operation, TableId table, Long snapshotId, String json) throws SQLException {
    try (PreparedStatement insert = connection().prepareStatement("INSERT INTO " + TABLE
        + " (recorded_at, actor, operation, table_name, snapshot_id, details) VALUES (?, ?, ?, ?, ?, ?)")) {
      insert.setLong(1, micros);
      insert.setString(2, actor);
      insert.setString(3, operation);
      if (table == null) {
        insert.setNull(4, Types.VARCHAR);
      } else {
        insert.setString(4, table.toString());
      }
      if (snapshotId == null) {
        insert.setNull(5, Types.BIGINT);
      } else {
        insert.setLong(5, snapshotId);
      }
      insert.setString(6, json);
      insert.executeUpdate();
    } catch (SQLException e) {
      discard();
      throw e;
    }
  }

  private void notRecorded(String operation, TableId table, Exception e) {
    failures.incrementAndGet();
    String reason = e instanceof SQLException sql
        ? "the catalog database failed (" + sql.getClass().getSimpleName() + ", SQL state " + sql.getSQLState() + "): "
            + dev.featurestore.Redaction.text(String.valueOf(sql.getMessage()))
        : e.getClass().getSimpleName() + ": " + dev.featurestore.Redaction.text(String.valueOf(e.getMessage()));
    LOG.warn("Cannot record operation {}{} in the operations log (the operation itself succeeded): {}", operation,
        table == null ? "" : " on " + table, reason);
    listener.ifPresent(l -> {
      try {
        l.onOperationNotRecorded(operation, reason);
      } catch (RuntimeException ignored) {
        LOG.warn("Metrics listener failed on onOperationNotRecorded: {}", ignored.toString());
      }
    });
  }

  /** Operations that could not be recorded since the store opened. */
  public long failures() {
    return failures.get();
  }

  /**
   * The entries, oldest first: of {@code table}, or all if empty.
   *
   * @throws StorageException if the catalog database cannot be read
   */
  public synchronized List<Record> entries(Optional<TableId> table) {
    if (database.isEmpty()) {
      return memory.stream().filter(r -> table.isEmpty() || table.get().toString().equals(r.get(3))).toList();
    }
    String sql = "SELECT recorded_at, actor, operation, table_name, snapshot_id, details FROM " + TABLE
        + (table.isPresent() ? " WHERE table_name = ?" : "") + " ORDER BY recorded_at";
    try (PreparedStatement select = connection().prepareStatement(sql)) {
      if (table.isPresent()) {
        select.setString(1, table.get().toString());
      }
      List<Record> rows = new ArrayList<>();
      try (ResultSet r = select.executeQuery()) {
        while (r.next()) {
          Record row = GenericRecord.create(SCHEMA);
          row.set(0, DateTimeUtil.timestamptzFromMicros(r.getLong(1)).withOffsetSameInstant(ZoneOffset.UTC));
          row.set(1, r.getString(2));
          row.set(2, r.getString(3));
          row.set(3, r.getString(4));
          long snapshot = r.getLong(5);
          row.set(4, r.wasNull() ? null : snapshot);
          row.set(5, r.getString(6));
          rows.add(row);
        }
      }
      return rows;
    } catch (SQLException e) {
      discard();
      throw new StorageException("Cannot read operations log: the catalog database failed (" + e.getClass().getSimpleName()
          + ", SQL state " + e.getSQLState() + "): " + TABLE);
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Connection c = database.orElseThrow().connect();
      try {
        ensureTable(c);
      } catch (SQLException e) {
        try {
          c.close();
        } catch (SQLException closing) {
          e.addSuppressed(closing);
        }
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  private static void ensureTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE IF NOT EXISTS " + TABLE + " (recorded_at BIGINT NOT NULL, actor VARCHAR(255) NOT NULL,"
          + " operation VARCHAR(64) NOT NULL, table_name VARCHAR(300), snapshot_id BIGINT, details TEXT NOT NULL)");
    } catch (SQLException e) {
      // two processes creating it at once: fine if it exists now
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
        r.next();
      } catch (SQLException again) {
        e.addSuppressed(again);
        throw e;
      }
    }
  }

  private void discard() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // a broken connection: nothing left to release
      }
      connection = null;
    }
  }

  @Override
  public synchronized void close() {
    discard();
  }

  @Override
  public String toString() {
    return "OperationLog{" + database.map(CatalogDatabase::toString).orElse("in memory") + ", actor=" + actor + "}";
  }
}
