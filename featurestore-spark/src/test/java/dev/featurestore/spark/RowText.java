package dev.featurestore.spark;

import dev.featurestore.QueryResult;
import dev.featurestore.TimeTravelQuery;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Rows of either engine in one comparable form: each row a list of values by column, each value
 * rendered as text after mapping the engines' Java types onto one another (an instant for
 * timestamps with a zone, hex for bytes, a plain decimal, a double's exact text).
 */
final class RowText {
  private RowText() {}

  static List<String> columns(Dataset<Row> rows) {
    return List.of(rows.columns());
  }

  /** Spark's rows, sorted. */
  static List<List<String>> of(Dataset<Row> rows) {
    List<List<String>> out = new ArrayList<>();
    for (Row row : rows.collectAsList()) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < row.size(); i++) {
        values.add(text(row.get(i)));
      }
      out.add(values);
    }
    return sorted(out);
  }

  /** Spark's rows in their order. */
  static List<List<String>> ordered(Dataset<Row> rows) {
    List<List<String>> out = new ArrayList<>();
    for (Row row : rows.collectAsList()) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < row.size(); i++) {
        values.add(text(row.get(i)));
      }
      out.add(values);
    }
    return out;
  }

  /** The library's rows of {@code query}, sorted, in the column order of {@code columns}. */
  static List<List<String>> of(TimeTravelQuery query, List<String> columns) {
    List<List<String>> out = new ArrayList<>();
    try (QueryResult result = query.execute()) {
      for (dev.featurestore.Row row : result) {
        List<String> values = new ArrayList<>();
        for (String column : columns) {
          values.add(text(row.get(column)));
        }
        out.add(values);
      }
    }
    return sorted(out);
  }

  /** Rows given as maps (DuckDB's), in their order, in the column order of {@code columns}. */
  static List<List<String>> ofMaps(List<Map<String, Object>> rows, List<String> columns) {
    List<List<String>> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      List<String> values = new ArrayList<>();
      for (String column : columns) {
        values.add(text(row.get(column)));
      }
      out.add(values);
    }
    return out;
  }

  static List<List<String>> sorted(List<List<String>> rows) {
    List<List<String>> copy = new ArrayList<>(rows);
    copy.sort((a, b) -> String.join("\u0001", a).compareTo(String.join("\u0001", b)));
    return copy;
  }

  static String text(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof OffsetDateTime t) {
      return t.toInstant().toString();
    }
    if (value instanceof Timestamp t) {
      return t.toInstant().toString();
    }
    if (value instanceof java.sql.Date d) {
      return d.toLocalDate().toString();
    }
    if (value instanceof Instant || value instanceof LocalDate) {
      return value.toString();
    }
    if (value instanceof ByteBuffer b) {
      ByteBuffer copy = b.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      return HexFormat.of().formatHex(bytes);
    }
    if (value instanceof byte[] bytes) {
      return HexFormat.of().formatHex(bytes);
    }
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (value instanceof Float f) {
      return Double.toString(f.doubleValue());
    }
    if (value instanceof Row nested) {
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < nested.size(); i++) {
        parts.add(text(nested.get(i)));
      }
      return parts.toString();
    }
    return value.toString();
  }
}
