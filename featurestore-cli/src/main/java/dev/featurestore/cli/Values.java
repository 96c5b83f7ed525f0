package dev.featurestore.cli;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Values as the command prints them: JSON-ready (strings, numbers, booleans, null, lists, maps).
 * Times are ISO-8601 strings, bytes base64, absent optionals null.
 */
final class Values {
  private Values() {}

  static Object plain(Object value) {
    if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Optional<?> o) {
      return o.map(Values::plain).orElse(null);
    }
    if (value instanceof OptionalLong o) {
      return o.isPresent() ? o.getAsLong() : null;
    }
    if (value instanceof OptionalInt o) {
      return o.isPresent() ? o.getAsInt() : null;
    }
    if (value instanceof ByteBuffer b) {
      ByteBuffer copy = b.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), plain(v)));
      return out;
    }
    if (value instanceof Iterable<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(plain(v)));
      return out;
    }
    if (value instanceof TemporalAccessor || value instanceof Duration || value instanceof Enum<?>) {
      return value.toString();
    }
    return value.toString();
  }

  /** A row (column order kept) with every value {@link #plain}. */
  static Map<String, Object> row(Object... keysAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      row.put((String) keysAndValues[i], plain(keysAndValues[i + 1]));
    }
    return row;
  }

  /** Bytes for people: 0 B, 12.3 KB, 4.5 MB (decimal units). */
  static String bytes(long n) {
    if (n < 1000) {
      return n + " B";
    }
    String[] units = {"KB", "MB", "GB", "TB", "PB"};
    double v = n;
    int u = -1;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
