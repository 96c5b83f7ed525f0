package dev.featurestore.core.ingest;

import dev.featurestore.InvalidDataException;
import java.util.Iterator;
import java.util.Map;

/** Rows given as column-name to value maps. */
final class MapRowSource implements RowSource {
  private final Iterator<? extends Map<String, ?>> rows;
  private long number;

  MapRowSource(Iterable<? extends Map<String, ?>> rows) {
    this.rows = rows.iterator();
  }

  @Override
  public String kind() {
    return "rows";
  }

  @Override
  public boolean next(RawRow row) {
    if (!rows.hasNext()) {
      return false;
    }
    Map<String, ?> map = rows.next();
    row.clear(++number);
    if (map == null) {
      throw new InvalidDataException("Cannot ingest row " + number + ": row is null", number, null);
    }
    for (Map.Entry<String, ?> e : map.entrySet()) {
      row.add(e.getKey(), e.getValue());
    }
    return true;
  }

  @Override
  public void close() {}
}
