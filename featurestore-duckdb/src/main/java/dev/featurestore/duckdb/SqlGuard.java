package dev.featurestore.duckdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.NotFoundException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The first half of the sandbox: user SQL is parsed by DuckDB itself ({@code
 * json_serialize_sql}, which serializes SELECT statements only) and the parse tree is checked
 * before anything runs: exactly one SELECT, table functions only from a few generators, and every
 * table a relation given to the query or a CTE of the query. The second half is the database's
 * configuration (external access off except the cache and warehouse directories, locked
 * settings), which holds even if this check missed something.
 */
final class SqlGuard {
  /** Table functions that read nothing but their arguments. */
  private static final Set<String> ALLOWED_TABLE_FUNCTIONS = Set.of("range", "generate_series", "unnest");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Functions whose result size follows from their arguments; refused when it would exceed the memory limit. */
  private static final Set<String> SIZED_FUNCTIONS = Set.of("repeat", "lpad", "rpad");

  private SqlGuard() {}

  /**
   * What bounds a query before it runs: the SQL text's length (DuckDB's parser allocates outside the
   * memory limit) and the memory limit, which DuckDB's buffer manager enforces for operators but not
   * for the strings scalar functions build.
   */
  record Limits(int maxSqlLength, String memoryLimit, long memoryLimitBytes) {}

  /**
   * Texts that passed the check, with the metadata relations they name: the check is a function
   * of the text, the relation names and the engine's limits, so a repeated query skips DuckDB's
   * parse and the tree walk (~1 ms). Refusals are not kept (they are checked again). Only texts of
   * up to {@code maxTextLength} characters are kept, at most {@code maxEntries}. Thread-safe.
   */
  static final class Verdicts {
    private final int maxEntries;
    private final int maxTextLength;
    private final java.util.LinkedHashMap<String, java.util.List<MetadataRelations.Name>> entries =
        new java.util.LinkedHashMap<>(16, 0.75f, true);

    Verdicts(int maxEntries, int maxTextLength) {
      this.maxEntries = maxEntries;
      this.maxTextLength = maxTextLength;
    }

    /** The check's result for {@code sql} with these relations, from the cache or checked now. */
    java.util.List<MetadataRelations.Name> check(Connection connection, String sql, Set<String> relations,
        Limits limits) {
      if (sql.length() > maxTextLength) {
        return SqlGuard.check(connection, sql, relations, limits);
      }
      String key = key(sql, relations);
      synchronized (this) {
        java.util.List<MetadataRelations.Name> known = entries.get(key);
        if (known != null) {
          return known;
        }
      }
      java.util.List<MetadataRelations.Name> checked = SqlGuard.check(connection, sql, relations, limits);
      synchronized (this) {
        entries.put(key, checked);
        java.util.Iterator<String> eldest = entries.keySet().iterator();
        while (entries.size() > maxEntries && eldest.hasNext()) {
          eldest.next();
          eldest.remove();
        }
      }
      return checked;
    }

    /** Relation names as the check compares them (case-insensitively), in a fixed order, then the text. */
    private static String key(String sql, Set<String> relations) {
      java.util.TreeSet<String> names = new java.util.TreeSet<>();
      relations.forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
      return String.join(",", names) + "\n" + sql;
    }
  }

  /**
   * Checks {@code sql}; returns the metadata relations it names ({@link MetadataRelations}), which
   * the caller registers besides {@code relations}.
   */
  static java.util.List<MetadataRelations.Name> check(Connection connection, String sql, Set<String> relations, Limits limits) {
    if (sql.length() > limits.maxSqlLength()) {
      throw new SqlRefusedException("Cannot run query: SQL text is longer than the limit of " + limits.maxSqlLength()
          + " characters (maxSqlLength): " + sql.length());
    }
    JsonNode tree;
    try (PreparedStatement statement = connection.prepareStatement("SELECT json_serialize_sql(?)")) {
      statement.setString(1, sql);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        tree = JSON.readTree(rs.getString(1));
      }
    } catch (SQLException | java.io.IOException e) {
      throw new InvalidSqlException("Cannot run query: cannot parse SQL: " + e.getMessage(), e);
    }
    if (tree.path("error").asBoolean(false)) {
      String type = tree.path("error_type").asText("");
      String message = tree.path("error_message").asText("");
      if (type.equals("parser")) {
        throw new InvalidSqlException("Cannot run query: invalid SQL: " + message, null);
      }
      throw new SqlRefusedException("Cannot run query: only a single SELECT statement is allowed: "
          + firstWord(sql));
    }
    JsonNode statements = tree.path("statements");
    if (statements.size() != 1) {
      throw new SqlRefusedException("Cannot run query: only a single SELECT statement is allowed: "
          + statements.size() + " statements");
    }
    Set<String> names = new HashSet<>();
    relations.forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
    collectCteNames(statements, names);
    java.util.Map<String, MetadataRelations.Name> metadata = new java.util.LinkedHashMap<>();
    walk(statements, names, limits, metadata);
    return java.util.List.copyOf(metadata.values());
  }

  private static void collectCteNames(JsonNode node, Set<String> names) {
    if (node.isObject()) {
      JsonNode map = node.path("cte_map").path("map");
      for (JsonNode entry : map) {
        names.add(entry.path("key").asText().toLowerCase(Locale.ROOT));
      }
    }
    for (JsonNode child : node) {
      collectCteNames(child, names);
    }
  }

  private static void walk(JsonNode node, Set<String> names, Limits limits,
      java.util.Map<String, MetadataRelations.Name> metadata) {
    if (node.isObject()) {
      String type = node.path("type").asText("");
      if (node.path("class").asText("").equals("FUNCTION")) {
        String name = node.path("function_name").asText("").toLowerCase(Locale.ROOT);
        if (SIZED_FUNCTIONS.contains(name)) {
          long size = resultBytes(node);
          if (size > limits.memoryLimitBytes()) {
            throw new SqlRefusedException("Cannot run query: the result of " + name + " would exceed the memory limit of "
                + limits.memoryLimit() + ": " + size + " bytes");
          }
        }
      }
      if (type.equals("TABLE_FUNCTION")) {
        JsonNode function = node.path("function");
        String name = function.path("function_name").asText("").toLowerCase(Locale.ROOT);
        if (!ALLOWED_TABLE_FUNCTIONS.contains(name) || !function.path("schema").asText("").isEmpty()
            || !function.path("catalog").asText("").isEmpty()) {
          throw new SqlRefusedException("Cannot run query: table function not allowed: " + name);
        }
      } else if (type.equals("BASE_TABLE")) {
        String table = node.path("table_name").asText("");
        String schema = node.path("schema_name").asText("");
        String catalog = node.path("catalog_name").asText("");
        if (!schema.isEmpty() && catalog.isEmpty() && looksLikeMetadata(schema + "." + table)) {
          throw new SqlRefusedException("Cannot run query: quote a metadata table's name as one identifier: \""
              + schema + "." + table + "\"");
        }
        if (!schema.isEmpty() || !catalog.isEmpty()) {
          throw new SqlRefusedException("Cannot run query: qualified table names are not allowed: "
              + (catalog.isEmpty() ? "" : catalog + ".") + (schema.isEmpty() ? "" : schema + ".") + table);
        }
        if (!node.path("at_clause").isNull() && !node.path("at_clause").isMissingNode()) {
          throw new SqlRefusedException("Cannot run query: AT clauses are not allowed (choose the version with "
              + "table(name, query)): " + table);
        }
        if (!names.contains(table.toLowerCase(Locale.ROOT))) {
          java.util.Optional<MetadataRelations.Name> meta = MetadataRelations.parse(table);
          if (meta.isEmpty()) {
            throw new NotFoundException("Cannot run query: unknown table (give it to the query with table(name, "
                + "version)): " + table);
          }
          metadata.putIfAbsent(table.toLowerCase(Locale.ROOT), meta.get());
        }
      }
    }
    for (JsonNode child : node) {
      walk(child, names, limits, metadata);
    }
  }

  /**
   * A lower bound of the bytes one call of a string expression returns, from its constant
   * arguments: a string literal's length, {@code repeat(s, n)} as n times s (s counted as at least
   * one byte when not constant), {@code lpad/rpad(s, n, ...)} as n; 0 when unknown. Counts that are
   * not literals cannot be bounded here (DuckDB allocates those strings outside its memory limit).
   */
  private static long resultBytes(JsonNode expression) {
    String kind = expression.path("class").asText("");
    if (kind.equals("CONSTANT")) {
      JsonNode literal = expression.path("literal");
      return literal.path("kind").asText("").equals("STRING") ? literal.path("text").asText("").length() : 0;
    }
    if (!kind.equals("FUNCTION")) {
      return 0;
    }
    String name = expression.path("function_name").asText("").toLowerCase(Locale.ROOT);
    JsonNode arguments = expression.path("arguments");
    if (!SIZED_FUNCTIONS.contains(name) || arguments.size() < 2) {
      return 0;
    }
    long count = integerLiteral(arguments.get(1).path("expression"));
    if (name.equals("repeat")) {
      long unit = Math.max(1, resultBytes(arguments.get(0).path("expression")));
      return count > Long.MAX_VALUE / unit ? Long.MAX_VALUE : count * unit;
    }
    return count;
  }

  private static long integerLiteral(JsonNode expression) {
    JsonNode literal = expression.path("literal");
    String text = literal.path("text").asText("");
    if (!expression.path("class").asText("").equals("CONSTANT") || literal.path("kind").asText("").equals("STRING")
        || !text.matches("\\d+")) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE; // beyond a long: DuckDB reads it as HUGEINT
    }
  }

  private static boolean looksLikeMetadata(String name) {
    try {
      return MetadataRelations.parse(name).isPresent();
    } catch (NotFoundException e) {
      return true; // the form, with an unknown metadata table: the quoting hint still applies
    }
  }

  private static String firstWord(String sql) {
    String trimmed = sql.strip();
    int end = 0;
    while (end < trimmed.length() && Character.isLetter(trimmed.charAt(end))) {
      end++;
    }
    return end == 0 ? trimmed : trimmed.substring(0, end).toUpperCase(Locale.ROOT);
  }
}
