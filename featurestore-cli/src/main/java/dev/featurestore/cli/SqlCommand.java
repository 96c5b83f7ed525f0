package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.Row;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.duckdb.DuckQueries;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.duckdb.SqlExport;
import dev.featurestore.duckdb.SqlQuery;
import dev.featurestore.duckdb.SqlResult;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sql}: one SELECT through the DuckDB adapter, sandboxed as the adapter is (only the
 * tables given can be read; no files, no extensions, no ATTACH). Every table of the store whose
 * name appears in the query is given under that name; {@code --table alias=ns.name} gives more.
 */
@Command(name = "sql", description = "Runs one SELECT over the store's tables with DuckDB (sandboxed), at any version.")
final class SqlCommand extends StoreCommand {
  enum Format { table, json, csv, parquet }

  @Parameters(index = "0", paramLabel = "QUERY", description = "The SELECT; tables by their name, e.g. feature_events.")
  String sql;

  @Option(names = "--as-of", paramLabel = "VERSION",
      description = "Read every table at this version: a snapshot id, a time (2026-12-01T10:00:00Z), or a tag or branch.")
  String asOf;

  @Option(names = "--table", paramLabel = "NAME=TABLE[@VERSION]",
      description = "Give a table under another name, optionally at its own version (repeatable).")
  Map<String, String> tables = new LinkedHashMap<>();

  @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "table",
      description = "Result format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format = Format.table;

  @Option(names = "--out", paramLabel = "FILE", description = "Write the result to this file instead of stdout (Parquet: never replaced).")
  Path file;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
      description = "Cancel the query after this long, e.g. 30s.")
  Duration timeout;

  @Option(names = "--memory-limit", paramLabel = "SIZE", defaultValue = "1GB", description = "DuckDB's memory limit (default: ${DEFAULT-VALUE}).")
  String memoryLimit;

  @Override
  int run(FeatureStore store) throws Exception {
    try (SqlEngine engine = DuckQueries.builder(store).memoryLimit(memoryLimit).build()) {
      SqlQuery query = engine.query(sql);
      for (Map.Entry<String, TimeTravelQuery> relation : relations(store).entrySet()) {
        query = query.table(relation.getKey(), relation.getValue());
      }
      if (timeout != null) {
        query = query.timeout(timeout);
      }
      if (format == Format.parquet) {
        return parquet(query);
      }
      try (SqlResult result = query.execute();
           PrintWriter w = file == null ? null : new PrintWriter(Files.newBufferedWriter(file))) {
        PrintWriter target = w == null ? out() : w;
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Row row : result) {
          Map<String, Object> plain = new LinkedHashMap<>();
          row.toMap().forEach((k, v) -> plain.put(k, Values.plain(v)));
          rows.add(plain);
        }
        switch (format) {
          case json -> target.println(Output.toJson(rows));
          case csv -> csv(target, result.columns(), rows);
          default -> {
            if (rows.isEmpty()) {
              target.println(String.join("  ", result.columns()));
            } else {
              Output.table(target, rows);
            }
          }
        }
        target.flush();
      }
      return ExitCodes.OK;
    }
  }

  private int parquet(SqlQuery query) throws Exception {
    if (file != null) {
      SqlExport export = query.exportParquet(file.toAbsolutePath());
      cli().stderr().println("wrote " + export.rows() + " rows, " + Values.bytes(export.bytes()) + " to " + export.location());
      return ExitCodes.OK;
    }
    Path dir = Files.createTempDirectory("featurestore-sql");
    Path tmp = dir.resolve("result.parquet");
    try {
      query.exportParquet(tmp);
      out().flush();
      Files.copy(tmp, cli().stdout());
      cli().stdout().flush();
    } finally {
      Files.deleteIfExists(tmp);
      Files.deleteIfExists(dir);
    }
    return ExitCodes.OK;
  }

  /** The relations: explicit ones first, then each store table whose bare name the query mentions. */
  private Map<String, TimeTravelQuery> relations(FeatureStore store) {
    Map<String, TimeTravelQuery> relations = new LinkedHashMap<>();
    tables.forEach((name, spec) -> {
      int at = spec.indexOf('@');
      FeatureTable t = store.table(at < 0 ? spec : spec.substring(0, at));
      TimeTravelQuery q = t.query();
      if (at >= 0) {
        q = Converters.asOf(q, spec.substring(at + 1));
      } else if (asOf != null) {
        q = Converters.asOf(q, asOf);
      }
      relations.put(name, q);
    });
    Map<String, List<TableId>> byName = new LinkedHashMap<>();
    for (TableId id : store.listTables()) {
      byName.computeIfAbsent(id.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(id);
    }
    String lower = sql.toLowerCase(Locale.ROOT);
    byName.forEach((name, ids) -> {
      boolean mentioned = Pattern.compile("(?<![A-Za-z0-9_.])" + Pattern.quote(name) + "(?![A-Za-z0-9_])").matcher(lower).find();
      boolean given = relations.keySet().stream().anyMatch(n -> n.equalsIgnoreCase(name));
      if (mentioned && !given) {
        InvalidArgumentException.check(ids.size() == 1,
            "Cannot run query: table name is in several namespaces, give one with --table %s=<namespace>.%s: %s", name, name, ids);
        TimeTravelQuery q = store.table(ids.get(0)).query();
        relations.put(name, asOf == null ? q : Converters.asOf(q, asOf));
      }
    });
    return relations;
  }

  static void csv(PrintWriter w, List<String> columns, List<Map<String, Object>> rows) {
    w.println(String.join(",", columns.stream().map(SqlCommand::csvCell).toList()));
    for (Map<String, Object> row : rows) {
      List<String> cells = new ArrayList<>();
      for (String c : columns) {
        Object v = row.get(c);
        cells.add(v == null ? "" : csvCell(v instanceof Map || v instanceof List ? Output.toJson(v).replaceAll("\\s*\\R\\s*", " ") : v.toString()));
      }
      w.println(String.join(",", cells));
    }
  }

  private static String csvCell(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
        ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
