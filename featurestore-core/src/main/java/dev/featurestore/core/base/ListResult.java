package dev.featurestore.core.base;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.ScanStats;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;

/**
 * A {@link QueryResult} over records already in memory (metadata tables, the operations log):
 * single-use like every result, with scan stats that count rows only.
 */
public final class ListResult implements QueryResult {
  private final Schema schema;
  private final long snapshotId;
  private final List<Record> records;
  private final long planningNanos;
  private final Map<String, Integer> positions = new LinkedHashMap<>();
  private boolean iterated = false;
  private boolean closed = false;

  public ListResult(Schema schema, long snapshotId, List<Record> records, long planningNanos) {
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.snapshotId = snapshotId;
    this.records = List.copyOf(records);
    this.planningNanos = planningNanos;
    for (int i = 0; i < schema.columns().size(); i++) {
      positions.put(schema.columns().get(i).name(), i);
    }
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long snapshotId() {
    return snapshotId;
  }

  @Override
  public ScanStats scanStats() {
    return new ScanStats(snapshotId, 0, 0, 0, 0, 0, records.size(), Duration.ofNanos(planningNanos), Duration.ZERO);
  }

  @Override
  public Iterator<Row> iterator() {
    InvalidStateException.check(!closed, "Cannot iterate query result: result is closed");
    InvalidStateException.check(!iterated, "Cannot iterate query result: already iterated (a result is single-use)");
    iterated = true;
    Iterator<Record> it = records.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return !closed && it.hasNext();
      }

      @Override
      public Row next() {
        return new ListRow(it.next());
      }
    };
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "QueryResult{schema=" + schema.columns().size() + " columns, rows=" + records.size() + "}";
  }

  private final class ListRow implements Row {
    private final Record record;

    ListRow(Record record) {
      this.record = record;
    }

    @Override
    public Object get(int position) {
      Objects.checkIndex(position, positions.size());
      return record.get(position);
    }

    @Override
    public Object get(String column) {
      Integer position = positions.get(column);
      if (position == null) {
        throw new InvalidArgumentException("Cannot get column: unknown column: " + column);
      }
      return record.get(position);
    }

    @Override
    public int size() {
      return positions.size();
    }

    @Override
    public Map<String, Object> toMap() {
      Map<String, Object> map = new LinkedHashMap<>();
      positions.forEach((name, i) -> map.put(name, record.get(i)));
      return map;
    }

    @Override
    public String toString() {
      return "Row" + toMap();
    }
  }
}
