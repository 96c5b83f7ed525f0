package dev.featurestore.core.online;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import dev.featurestore.core.catalog.JdbcDrivers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The view's SQLite file: one row of state ({@code view_meta}: the layout, the snapshot it
 * reflects), the current names and types of its columns ({@code view_columns}) and one row per key
 * ({@code entries}: key, event time in micros, data sequence number, one column per feature named by
 * field id). WAL journal, so readers never wait for the materializing writer and see each
 * materialization whole or not at all.
 *
 * <p>One writer connection (used by one materialization at a time) and a bounded pool of read
 * connections, each with its own prepared statements.
 */
final class ViewDatabase implements AutoCloseable {
  static final String ENTRIES = "entries";

  /** The stored state of a view. */
  record Meta(String layout, String names, Optional<Long> snapshotId, long sequenceNumber, long committedMillis,
      long materializedMillis) {}

  private final Path file;
  private final String url;
  private final Connection writer;
  private final Semaphore readPermits;
  private final ConcurrentLinkedQueue<ReadConnection> idle = new ConcurrentLinkedQueue<>();
  private final List<ReadConnection> all = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private ViewDatabase(Path file, Connection writer, int readers) {
    this.file = file;
    this.url = "jdbc:sqlite:" + file.toAbsolutePath();
    this.writer = writer;
    this.readPermits = new Semaphore(readers);
  }

  static ViewDatabase open(Path file, int readers) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new StorageException("Cannot open online view: cannot create its directory: " + file.getParent(), e);
    }
    String url = "jdbc:sqlite:" + file.toAbsolutePath();
    JdbcDrivers.register(url);
    try {
      Connection c = DriverManager.getConnection(url);
      try (Statement st = c.createStatement()) {
        st.execute("PRAGMA busy_timeout=30000");
        st.execute("PRAGMA journal_mode=WAL");
        // a lost last transaction on power loss leaves the view at its previous snapshot: still consistent
        st.execute("PRAGMA synchronous=NORMAL");
        st.execute("PRAGMA cache_size=-262144");
        st.execute("PRAGMA temp_store=MEMORY");
        st.execute("PRAGMA journal_size_limit=67108864");
        st.execute("CREATE TABLE IF NOT EXISTS view_meta (id INTEGER PRIMARY KEY CHECK (id = 1), layout TEXT NOT NULL,"
            + " names TEXT NOT NULL, snapshot_id INTEGER, sequence_number INTEGER NOT NULL, committed_ms INTEGER NOT NULL,"
            + " materialized_ms INTEGER NOT NULL)");
        st.execute("CREATE TABLE IF NOT EXISTS view_columns (field_id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,"
            + " position INTEGER NOT NULL)");
      }
      return new ViewDatabase(file, c, readers);
    } catch (SQLException e) {
      throw new StorageException("Cannot open online view: " + file + ": " + e.getMessage(), e);
    }
  }

  Path file() {
    return file;
  }

  Connection writer() {
    return writer;
  }

  Optional<Meta> meta() {
    try (Statement st = writer.createStatement();
         ResultSet rs = st.executeQuery("SELECT layout, names, snapshot_id, sequence_number, committed_ms, materialized_ms"
             + " FROM view_meta WHERE id = 1")) {
      if (!rs.next()) {
        return Optional.empty();
      }
      long snapshot = rs.getLong(3);
      Optional<Long> id = rs.wasNull() ? Optional.empty() : Optional.of(snapshot);
      return Optional.of(new Meta(rs.getString(1), rs.getString(2), id, rs.getLong(4), rs.getLong(5), rs.getLong(6)));
    } catch (SQLException e) {
      throw failure("read online view state", e);
    }
  }

  /** The stored columns: field id to {name, type}, in view order. */
  Map<Integer, String[]> columns(Connection c) throws SQLException {
    Map<Integer, String[]> columns = new java.util.LinkedHashMap<>();
    try (Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT field_id, name, type FROM view_columns ORDER BY position")) {
      while (rs.next()) {
        columns.put(rs.getInt(1), new String[] {rs.getString(2), rs.getString(3)});
      }
    }
    return columns;
  }

  /** Drops every entry and starts over with {@code layout}: the view reflects no snapshot until materialized. */
  void reset(ViewLayout layout, String names, String storedLayout) {
    try (Statement st = writer.createStatement()) {
      st.execute("BEGIN IMMEDIATE");
      try {
        st.execute("DROP TABLE IF EXISTS " + ENTRIES);
        st.execute(createEntries(ENTRIES, layout));
        st.execute("DELETE FROM view_columns");
        st.execute("DELETE FROM view_meta");
        try (PreparedStatement insert = writer.prepareStatement("INSERT INTO view_meta (id, layout, names, snapshot_id,"
            + " sequence_number, committed_ms, materialized_ms) VALUES (1, ?, ?, NULL, 0, 0, 0)")) {
          insert.setString(1, storedLayout);
          insert.setString(2, names);
          insert.executeUpdate();
        }
        st.execute("COMMIT");
      } catch (SQLException | RuntimeException e) {
        st.execute("ROLLBACK");
        throw e;
      }
    } catch (SQLException e) {
      throw failure("reset online view", e);
    }
  }

  void names(String names) {
    try (PreparedStatement update = writer.prepareStatement("UPDATE view_meta SET names = ? WHERE id = 1")) {
      update.setString(1, names);
      update.executeUpdate();
    } catch (SQLException e) {
      throw failure("update online view state", e);
    }
  }

  static String createEntries(String table, ViewLayout layout) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(table).append(" (k ")
        .append(layout.keyKind() == ViewLayout.KeyKind.INTEGER ? "INTEGER" : "TEXT")
        .append(" PRIMARY KEY, t INTEGER NOT NULL, s INTEGER NOT NULL");
    for (int id : layout.featureIds()) {
      sql.append(", f").append(id);
    }
    sql.append(")");
    if (layout.keyKind() == ViewLayout.KeyKind.TEXT) {
      sql.append(" WITHOUT ROWID");
    }
    return sql.toString();
  }

  /** Runs {@code read} on a pooled read connection (waiting for one if all are busy). */
  <T> T read(String what, SqlFunction<ReadConnection, T> read) {
    if (closed.get()) {
      throw new InvalidStateException("Cannot " + what + ": the online view is closed");
    }
    readPermits.acquireUninterruptibly();
    ReadConnection c = idle.poll();
    try {
      if (c == null) {
        c = new ReadConnection(openReader());
        synchronized (all) {
          all.add(c);
        }
      }
      return read.apply(c);
    } catch (SQLException e) {
      throw failure(what, e);
    } finally {
      if (c != null) {
        idle.add(c);
      }
      readPermits.release();
    }
  }

  private Connection openReader() throws SQLException {
    Connection c = DriverManager.getConnection(url);
    try (Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout=30000");
      st.execute("PRAGMA query_only=1");
      st.execute("PRAGMA mmap_size=1073741824");
      st.execute("PRAGMA cache_size=-32768");
    }
    return c;
  }

  /** A read connection and its prepared statements (one thread at a time). */
  static final class ReadConnection {
    final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    ReadConnection(Connection connection) {
      this.connection = connection;
    }

    PreparedStatement prepared(String sql) throws SQLException {
      PreparedStatement st = statements.get(sql);
      if (st == null) {
        if (statements.size() > 64) {
          for (PreparedStatement old : statements.values()) {
            old.close();
          }
          statements.clear();
        }
        st = connection.prepareStatement(sql);
        statements.put(sql, st);
      }
      return st;
    }

    void close() {
      try {
        for (PreparedStatement st : statements.values()) {
          st.close();
        }
        connection.close();
      } catch (SQLException e) {
        // closing
      }
    }
  }

  @FunctionalInterface
  interface SqlFunction<A, T> {
    T apply(A a) throws SQLException;
  }

  StorageException failure(String what, SQLException e) {
    return new StorageException("Cannot " + what + ": " + file.getFileName() + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      synchronized (all) {
        for (ReadConnection c : all) {
          c.close();
        }
        all.clear();
      }
      synchronized (writer) {
        try {
          writer.close();
        } catch (SQLException e) {
          // closing
        }
      }
    }
  }
}
