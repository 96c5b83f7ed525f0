package dev.featurestore.duckdb;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;

/**
 * A child JVM for {@link DuckSharedDirectoriesTest}: opens the store at {@code args[0]} and a DuckDB
 * engine with the default work directory, runs a query, prints {@code READY <work directory>}
 * and keeps both open until it reads a line or is killed.
 */
public final class SharedRootChild {
  private SharedRootChild() {}

  public static void main(String[] args) throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(Path.of(args[0]));
        SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("256MB").build();
        SqlResult result = sql.query("SELECT 42 AS answer").execute()) {
      result.toList();
      System.out.println("READY " + ((DuckEngine) sql).workDirectory());
      System.out.flush();
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
          .readLine();
    }
    System.out.println("CLOSED");
  }
}
