package dev.featurestore.examples;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.duckdb.DuckQueries;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.duckdb.SqlRefusedException;
import dev.featurestore.duckdb.SqlResult;
import dev.featurestore.duckdb.TableScanStats;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * SQL over two snapshots of a feature table with the in-process DuckDB adapter, on the embedded
 * default (a local directory, no credentials, no network): the same aggregate at each snapshot,
 * the rows the second commit added (one query over both versions), and the sandbox refusing a
 * query that tries to read a file.
 *
 * <p>Run it from the repository root with {@code ./mvnw -q -B -Psql-example -DskipTests verify};
 * pass a directory as the first argument to keep the store elsewhere (default {@code
 * sql-example-store}).
 */
public final class SqlQueryExample {
  private SqlQueryExample() {}

  public static void main(String[] args) {
    Path root = Path.of(args.length > 0 ? args[0] : "sql-example-store").toAbsolutePath();
    System.out.println("== featurestore SQL example, store at " + root);
    try (FeatureStore store = FeatureStore.openLocal(root);
         SqlEngine sql = DuckQueries.builder(store).threads(2).memoryLimit("512MB").build()) {
      store.dropTable(SyntheticFeatures.TABLE_ID, true); // a clean demo table on every run
      FeatureTable events = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());

      IngestResult first = events.ingest().synthetic(20_000, 1).commit();
      IngestResult second = events.ingest().synthetic(10_000, 2).commit();
      long before = first.snapshotId().getAsLong();
      long after = second.snapshotId().getAsLong();
      System.out.println("snapshots: " + before + " (20000 rows), " + after + " (+10000 rows)");

      // the same SQL at each snapshot: only the TimeTravelQuery changes
      String aggregate = "SELECT count(*) AS n, count(DISTINCT entity_id) AS entities, "
          + "round(avg(feature_a), 4) AS avg_a FROM ev";
      for (long snapshot : new long[] {before, after}) {
        Map<String, Object> row = sql.query(aggregate)
            .table("ev", events.query().asOfSnapshot(snapshot))
            .toList().get(0);
        System.out.println("at snapshot " + snapshot + ": " + row);
      }

      // both versions in one query: what did the second commit add?
      try (SqlResult result = sql.query("""
              SELECT count(*) AS added FROM (SELECT * FROM after EXCEPT ALL SELECT * FROM before)""")
          .table("before", events.query().asOfSnapshot(before))
          .table("after", events.query().asOfSnapshot(after))
          .execute()) {
        System.out.println("rows added by the second commit: " + result.toList().get(0).get("added"));
        for (TableScanStats stats : result.stats().tables()) {
          System.out.println("  scan of " + stats.name() + ": snapshot " + stats.snapshotId() + ", "
              + stats.plannedDataFiles() + " data file(s), " + stats.plannedBytes() + " bytes");
        }
      }

      // any SELECT DuckDB runs: here the entities with the highest mean feature_a at the later snapshot
      List<Map<String, Object>> top = sql.query("""
              SELECT entity_id, count(*) AS n, round(avg(feature_a), 3) AS avg_a
              FROM ev GROUP BY entity_id HAVING count(*) >= 2 ORDER BY avg_a DESC, entity_id LIMIT 3""")
          .table("ev", events.query().asOfSnapshot(after))
          .toList();
      System.out.println("top entities at snapshot " + after + ": " + top);

      // the sandbox: user SQL reads the relations it was given and nothing else
      try {
        sql.query("SELECT * FROM read_csv('/etc/passwd')").table("ev", events).toList();
        System.out.println("sandbox: NOT refused");
      } catch (SqlRefusedException e) {
        System.out.println("sandbox refused: " + e.getMessage());
      }
    }
  }
}
