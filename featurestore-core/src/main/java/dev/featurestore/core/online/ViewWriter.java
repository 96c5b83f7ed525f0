package dev.featurestore.core.online;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.types.Types;

/**
 * One materialization's write transaction on the view's file ({@code BEGIN IMMEDIATE} ...
 * {@code COMMIT}): either everything it wrote and the new snapshot id land, or nothing does. A
 * rebuild writes a new entries table and swaps it in within the same transaction.
 *
 * <p>An upsert keeps the row with the higher (event time, data sequence number): the later
 * commit wins a tie in event time.
 */
final class ViewWriter implements AutoCloseable {
  private static final int BATCH = 4096;
  private final Connection c;
  private final ViewLayout layout;
  private final String table;
  private final boolean rebuild;
  private final PreparedStatement upsert;
  private final PreparedStatement find;
  private final PreparedStatement delete;
  private int pending;
  private long written;
  private boolean done;

  private ViewWriter(Connection c, ViewLayout layout, boolean rebuild) throws SQLException {
    this.c = c;
    this.layout = layout;
    this.rebuild = rebuild;
    this.table = rebuild ? ViewDatabase.ENTRIES + "_new" : ViewDatabase.ENTRIES;
    if (rebuild) {
      try (Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
        st.execute(ViewDatabase.createEntries(table, layout));
      }
    }
    StringBuilder columns = new StringBuilder("k, t, s");
    StringBuilder params = new StringBuilder("?, ?, ?");
    StringBuilder set = new StringBuilder("t = excluded.t, s = excluded.s");
    for (int id : layout.featureIds()) {
      columns.append(", f").append(id);
      params.append(", ?");
      set.append(", f").append(id).append(" = excluded.f").append(id);
    }
    this.upsert = c.prepareStatement("INSERT INTO " + table + " (" + columns + ") VALUES (" + params + ")"
        + " ON CONFLICT (k) DO UPDATE SET " + set
        + " WHERE excluded.t > " + table + ".t OR (excluded.t = " + table + ".t AND excluded.s >= " + table + ".s)");
    this.find = c.prepareStatement("SELECT t, s FROM " + table + " WHERE k = ?");
    this.delete = c.prepareStatement("DELETE FROM " + table + " WHERE k = ?");
  }

  /** Takes the view's write lock ({@code BEGIN IMMEDIATE}); end it with {@link #writer} or {@link #rollback}. */
  static void begin(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("BEGIN IMMEDIATE");
    }
  }

  /** Ends the transaction {@link #begin} started without writing (nothing if none is open). */
  static void rollback(Connection c) {
    try (Statement st = c.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException e) {
      // no transaction open
    }
  }

  /** Writes into the transaction {@link #begin} started: into the entries, or (rebuild) a new table swapped in at commit. */
  static ViewWriter writer(Connection c, ViewLayout layout, boolean rebuild) throws SQLException {
    return new ViewWriter(c, layout, rebuild);
  }

  /** Keeps {@code row} ({key, micros, feature values...}) if it is newer than the key's entry. */
  void upsert(Object[] row, long sequenceNumber) throws SQLException {
    SqlValues.bind(upsert, 1, row[0]);
    upsert.setLong(2, (Long) row[1]);
    upsert.setLong(3, sequenceNumber);
    for (int i = 2; i < row.length; i++) {
      SqlValues.bind(upsert, i + 2, row[i]);
    }
    upsert.addBatch();
    written++;
    if (++pending >= BATCH) {
      flush();
    }
  }

  private void flush() throws SQLException {
    if (pending > 0) {
      upsert.executeBatch();
      pending = 0;
    }
  }

  /** The key's entry: {event micros, data sequence number}. */
  Optional<long[]> entry(Object key) throws SQLException {
    flush();
    SqlValues.bind(find, 1, key);
    try (ResultSet rs = find.executeQuery()) {
      return rs.next() ? Optional.of(new long[] {rs.getLong(1), rs.getLong(2)}) : Optional.empty();
    }
  }

  void delete(Object key) throws SQLException {
    flush();
    SqlValues.bind(delete, 1, key);
    delete.executeUpdate();
    written++;
  }

  long written() {
    return written;
  }

  /** Records the snapshot and the columns' current names and types, and commits. */
  void commit(long snapshotId, long sequenceNumber, long committedMillis, long nowMillis,
      Map<Integer, Types.NestedField> columns) throws SQLException {
    flush();
    upsert.close();
    find.close();
    delete.close();
    try (Statement st = c.createStatement()) {
      if (rebuild) {
        st.execute("DROP TABLE IF EXISTS " + ViewDatabase.ENTRIES);
        st.execute("ALTER TABLE " + table + " RENAME TO " + ViewDatabase.ENTRIES);
      }
      try (PreparedStatement meta = c.prepareStatement("UPDATE view_meta SET snapshot_id = ?, sequence_number = ?,"
          + " committed_ms = ?, materialized_ms = ? WHERE id = 1")) {
        meta.setLong(1, snapshotId);
        meta.setLong(2, sequenceNumber);
        meta.setLong(3, committedMillis);
        meta.setLong(4, nowMillis);
        meta.executeUpdate();
      }
      st.execute("DELETE FROM view_columns");
      try (PreparedStatement insert = c.prepareStatement(
          "INSERT INTO view_columns (field_id, name, type, position) VALUES (?, ?, ?, ?)")) {
        int position = 0;
        for (Map.Entry<Integer, Types.NestedField> e : columns.entrySet()) {
          insert.setInt(1, e.getKey());
          insert.setString(2, e.getValue().name());
          insert.setString(3, e.getValue().type().toString());
          insert.setInt(4, position++);
          insert.addBatch();
        }
        insert.executeBatch();
      }
      st.execute("COMMIT");
      done = true;
    }
  }

  /** Rolls the transaction back unless committed. */
  @Override
  public void close() throws SQLException {
    if (!done) {
      done = true;
      upsert.close();
      find.close();
      delete.close();
      try (Statement st = c.createStatement()) {
        st.execute("ROLLBACK");
      }
    }
  }

  List<Integer> featureIds() {
    return layout.featureIds();
  }
}
