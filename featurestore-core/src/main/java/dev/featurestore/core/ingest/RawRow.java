package dev.featurestore.core.ingest;

import java.util.Arrays;

/**
 * One input row as parallel name/value arrays, reused from row to row so that sources with a
 * fixed column layout (CSV header, a Java class, a Parquet file) allocate nothing per row but
 * the values themselves.
 */
final class RawRow {
  /** 1-based row number, or the line number for CSV and JSON files. */
  long number;
  private String[] ownNames = new String[16];
  String[] names = ownNames;
  Object[] values = new Object[16];
  int size;
  /**
   * Non-null when {@link #names} is the same array for many rows: the mapper then resolves the
   * names to columns once per layout instead of once per row.
   */
  Object layout;

  void clear(long rowNumber) {
    number = rowNumber;
    Arrays.fill(values, 0, size, null);
    size = 0;
    if (layout != null) {
      names = ownNames;
      layout = null;
    }
  }

  void add(String name, Object value) {
    if (size == values.length) {
      ownNames = Arrays.copyOf(ownNames, size * 2);
      names = ownNames;
      values = Arrays.copyOf(values, size * 2);
    } else if (names.length < values.length) {
      ownNames = Arrays.copyOf(ownNames, values.length);
      names = ownNames;
    }
    names[size] = name;
    values[size] = value;
    size++;
  }

  /** Uses a shared names array (a fixed layout); values are filled by the caller. */
  void useLayout(String[] layoutNames, Object layoutKey) {
    if (values.length < layoutNames.length) {
      values = new Object[layoutNames.length];
    }
    names = layoutNames;
    size = layoutNames.length;
    layout = layoutKey;
  }
}
