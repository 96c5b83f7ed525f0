package dev.featurestore.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * {@code --output table|json}, mixed into every read command, and the rendering of its answer:
 * a list of rows or one object (a map whose values may be lists of rows). JSON is what scripts
 * parse: one document on standard output, keys in snake case, nothing else on that stream.
 */
final class Output {
  enum Format { table, json }

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format = Format.table;

  boolean json() {
    return format == Format.json;
  }

  /** Prints rows: a table with a header, or a JSON array. */
  void rows(PrintWriter out, List<Map<String, Object>> rows) {
    if (json()) {
      out.println(toJson(rows));
    } else {
      table(out, rows);
    }
    out.flush();
  }

  /** Prints one object: {@code key: value} lines and a table per list of rows, or a JSON object. */
  void object(PrintWriter out, Map<String, Object> object) {
    if (json()) {
      out.println(toJson(object));
      out.flush();
      return;
    }
    for (Map.Entry<String, Object> e : object.entrySet()) {
      Object v = e.getValue();
      if (v instanceof List<?> list && (list.isEmpty() || list.get(0) instanceof Map)) {
        out.println();
        out.println(e.getKey() + ":");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) list;
        if (rows.isEmpty()) {
          out.println("  (none)");
        } else {
          table(out, rows, "  ");
        }
      } else if (v instanceof Map<?, ?> map) {
        out.println();
        out.println(e.getKey() + ":");
        if (map.isEmpty()) {
          out.println("  (none)");
        }
        map.forEach((k, x) -> out.println("  " + k + " = " + cell(x)));
      } else {
        out.println(e.getKey() + ": " + cell(v));
      }
    }
    out.flush();
  }

  static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  static void table(PrintWriter out, List<Map<String, Object>> rows) {
    table(out, rows, "");
  }

  /** An aligned text table; numbers right-aligned. The header is the union of the rows' keys. */
  static void table(PrintWriter out, List<Map<String, Object>> rows, String indent) {
    Set<String> columns = new LinkedHashSet<>();
    rows.forEach(r -> columns.addAll(r.keySet()));
    List<String> names = new ArrayList<>(columns);
    int[] width = new int[names.size()];
    boolean[] numeric = new boolean[names.size()];
    for (int c = 0; c < names.size(); c++) {
      width[c] = names.get(c).length();
      numeric[c] = !rows.isEmpty();
      for (Map<String, Object> r : rows) {
        Object v = r.get(names.get(c));
        width[c] = Math.max(width[c], cell(v).length());
        numeric[c] &= v == null || v instanceof Number;
      }
    }
    StringBuilder line = new StringBuilder(indent);
    for (int c = 0; c < names.size(); c++) {
      pad(line, names.get(c), width[c], numeric[c], c == names.size() - 1);
    }
    out.println(line.toString().stripTrailing());
    for (Map<String, Object> r : rows) {
      line.setLength(0);
      line.append(indent);
      for (int c = 0; c < names.size(); c++) {
        pad(line, cell(r.get(names.get(c))), width[c], numeric[c], c == names.size() - 1);
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private static void pad(StringBuilder line, String text, int width, boolean right, boolean last) {
    String fill = " ".repeat(width - text.length());
    line.append(right ? fill + text : text + (last ? "" : fill));
    if (!last) {
      line.append("  ");
    }
  }

  /** A value in one table cell: one line, null as empty. */
  static String cell(Object v) {
    if (v == null) {
      return "";
    }
    String s = v instanceof Map || v instanceof List ? toJson(v).replaceAll("\\s*\\R\\s*", " ") : v.toString();
    return s.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
  }
}
