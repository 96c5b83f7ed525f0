package dev.featurestore.core.online;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineViewDefinition;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads of a view. A single key is one statement (the view's snapshot id joined to the key's
 * entry), a batch one read transaction: both see one committed state of the view, never part of a
 * materialization. Values decode by the columns' current types; names are the current names.
 */
final class ViewReads {
  /** The served columns as of a snapshot of the view. */
  private record Columns(List<Integer> ids, List<String> names, List<Type> types, Map<String, Integer> positions, String getSql) {}

  private final ViewDatabase db;
  private final ViewLayout layout;
  private final OnlineViewDefinition definition;
  private final Clock clock;
  private final Type keyType;
  private final long ttlMicros;
  private volatile Columns columns;
  private final LongAdder reads = new LongAdder();
  private final LongAdder found = new LongAdder();
  private final LongAdder missing = new LongAdder();
  private final LongAdder expired = new LongAdder();

  ViewReads(ViewDatabase db, ViewLayout layout, OnlineViewDefinition definition, Clock clock, Schema current) {
    this.db = db;
    this.layout = layout;
    this.definition = definition;
    this.clock = clock;
    this.keyType = current.findType(layout.keyId());
    this.ttlMicros = definition.ttl().map(d -> d.toNanos() / 1000).orElse(-1L);
    Map<Integer, String[]> fallback = new LinkedHashMap<>();
    for (int id : layout.presentFeatures(current)) {
      Types.NestedField f = current.findField(id);
      fallback.put(id, new String[] {f.name(), f.type().toString()});
    }
    this.columns = toColumns(fallback);
    reloadColumns();
  }

  private static Columns toColumns(Map<Integer, String[]> stored) {
    List<Integer> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Type> types = new ArrayList<>();
    Map<String, Integer> positions = new HashMap<>();
    for (Map.Entry<Integer, String[]> e : stored.entrySet()) {
      positions.put(e.getValue()[0], ids.size());
      ids.add(e.getKey());
      names.add(e.getValue()[0]);
      types.add(Types.fromPrimitiveString(e.getValue()[1]));
    }
    StringBuilder sql = new StringBuilder("SELECT m.snapshot_id, e.t");
    for (int id : ids) {
      sql.append(", e.f").append(id);
    }
    sql.append(" FROM view_meta m LEFT JOIN ").append(ViewDatabase.ENTRIES).append(" e ON e.k = ? WHERE m.id = 1");
    return new Columns(List.copyOf(ids), List.copyOf(names), List.copyOf(types), Map.copyOf(positions), sql.toString());
  }

  /** Re-reads the columns after a materialization (a rename or a dropped feature). */
  void reloadColumns() {
    Map<Integer, String[]> stored = db.read("read online view columns", c -> db.columns(c.connection));
    if (!stored.isEmpty()) {
      columns = toColumns(stored);
    }
  }

  List<String> features() {
    return columns.names();
  }

  Optional<ViewDatabase.Meta> meta() {
    return db.read("read online view state", c -> {
      try (Statement st = c.connection.createStatement();
           ResultSet rs = st.executeQuery("SELECT layout, names, snapshot_id, sequence_number, committed_ms, materialized_ms"
               + " FROM view_meta WHERE id = 1")) {
        if (!rs.next()) {
          return Optional.empty();
        }
        long snapshot = rs.getLong(3);
        Optional<Long> id = rs.wasNull() ? Optional.empty() : Optional.of(snapshot);
        return Optional.of(new ViewDatabase.Meta(rs.getString(1), rs.getString(2), id, rs.getLong(4), rs.getLong(5),
            rs.getLong(6)));
      }
    });
  }

  OnlineRow get(Object key) {
    Object stored = SqlValues.callerKey(key, keyType, definition.key(), definition.name());
    Columns cols = columns;
    long now = micros(clock.instant());
    OnlineRow row = db.read("read online view " + definition.name(), c -> {
      PreparedStatement st = c.prepared(cols.getSql());
      SqlValues.bind(st, 1, stored);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return new OnlineRow(key, OnlineRow.Status.MISSING, Optional.empty(), Map.of(), -1);
        }
        long snapshot = rs.getLong(1);
        if (rs.wasNull()) {
          snapshot = -1;
        }
        return decode(key, rs, 2, cols, allPositions(cols), snapshot, now);
      }
    });
    count(row);
    return row;
  }

  OnlineBatch get(Collection<?> keys, Collection<String> features) {
    String what = "read online view " + definition.name();
    InvalidArgumentException.requireNonNull(keys, what, "keys");
    InvalidArgumentException.requireNonNull(features, what, "features");
    Columns cols = columns;
    List<Object> asked = new ArrayList<>(keys.size());
    Map<Object, Object> storedKeys = new LinkedHashMap<>();
    for (Object key : keys) {
      asked.add(key);
      storedKeys.putIfAbsent(key, SqlValues.callerKey(key, keyType, definition.key(), definition.name()));
    }
    int[] positions = new int[features.size()];
    int n = 0;
    for (String feature : features) {
      InvalidArgumentException.requireNonNull(feature, what, "feature");
      Integer position = cols.positions().get(feature);
      if (position == null) {
        throw new InvalidArgumentException("Cannot " + what + ": no such feature in the view (it has " + cols.names() + "): " + feature);
      }
      positions[n++] = position;
    }
    StringBuilder select = new StringBuilder("SELECT k, t");
    for (int p : positions) {
      select.append(", f").append(cols.ids().get(p));
    }
    select.append(" FROM ").append(ViewDatabase.ENTRIES).append(" WHERE k IN (");
    List<Object> distinct = new ArrayList<>(new java.util.LinkedHashSet<>(storedKeys.values()));
    long now = micros(clock.instant());
    OnlineBatch batch = db.read(what, c -> {
      Map<Object, Object[]> entries = new HashMap<>();
      long snapshot;
      try (Statement st = c.connection.createStatement()) {
        st.execute("BEGIN");
        try {
          try (ResultSet rs = st.executeQuery("SELECT snapshot_id FROM view_meta WHERE id = 1")) {
            snapshot = rs.next() ? rs.getLong(1) : -1;
            if (rs.wasNull()) {
              snapshot = -1;
            }
          }
          for (int from = 0; from < distinct.size(); from += 256) {
            int size = Math.min(256, distinct.size() - from);
            int padded = Integer.highestOneBit(size) == size ? size : Integer.highestOneBit(size) << 1;
            StringBuilder sql = new StringBuilder(select);
            for (int i = 0; i < padded; i++) {
              sql.append(i == 0 ? "?" : ", ?");
            }
            PreparedStatement ps = c.prepared(sql.append(")").toString());
            for (int i = 0; i < padded; i++) {
              SqlValues.bind(ps, i + 1, distinct.get(from + Math.min(i, size - 1)));
            }
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                Object k = layout.keyKind() == ViewLayout.KeyKind.INTEGER ? (Object) rs.getLong(1) : rs.getString(1);
                Object[] values = new Object[1 + positions.length];
                long t = rs.getLong(2);
                values[0] = t;
                for (int i = 0; i < positions.length; i++) {
                  values[1 + i] = SqlValues.read(rs, 3 + i, cols.types().get(positions[i]));
                }
                entries.put(k, values);
              }
            }
          }
        } finally {
          st.execute("COMMIT");
        }
      }
      List<OnlineRow> rows = new ArrayList<>(asked.size());
      for (Object key : asked) {
        Object[] entry = entries.get(storedKeys.get(key));
        rows.add(row(key, entry, positions, cols, snapshot, now));
      }
      return new OnlineBatch(rows, snapshot);
    });
    batch.rows().forEach(this::count);
    return batch;
  }

  private OnlineRow row(Object key, Object[] entry, int[] positions, Columns cols, long snapshot, long now) {
    if (entry == null) {
      return new OnlineRow(key, OnlineRow.Status.MISSING, Optional.empty(), Map.of(), snapshot);
    }
    long t = (Long) entry[0];
    Optional<Instant> time = Optional.of(instant(t));
    if (ttlMicros > 0 && now - t > ttlMicros) {
      return new OnlineRow(key, OnlineRow.Status.EXPIRED, time, Map.of(), snapshot);
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < positions.length; i++) {
      if (entry[1 + i] != null) {
        values.put(cols.names().get(positions[i]), entry[1 + i]);
      }
    }
    return new OnlineRow(key, OnlineRow.Status.FOUND, time, values, snapshot);
  }

  private OnlineRow decode(Object key, ResultSet rs, int timeColumn, Columns cols, int[] positions, long snapshot, long now)
      throws SQLException {
    long t = rs.getLong(timeColumn);
    if (rs.wasNull()) {
      return new OnlineRow(key, OnlineRow.Status.MISSING, Optional.empty(), Map.of(), snapshot);
    }
    Object[] entry = new Object[1 + positions.length];
    entry[0] = t;
    for (int i = 0; i < positions.length; i++) {
      entry[1 + i] = SqlValues.read(rs, timeColumn + 1 + i, cols.types().get(positions[i]));
    }
    return row(key, entry, positions, cols, snapshot, now);
  }

  private static int[] allPositions(Columns cols) {
    int[] positions = new int[cols.ids().size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i;
    }
    return positions;
  }

  private void count(OnlineRow row) {
    reads.increment();
    switch (row.status()) {
      case FOUND -> found.increment();
      case MISSING -> missing.increment();
      case EXPIRED -> expired.increment();
    }
  }

  private static long micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
  }

  long reads() {
    return reads.sum();
  }

  long found() {
    return found.sum();
  }

  long missing() {
    return missing.sum();
  }

  long expired() {
    return expired.sum();
  }
}
