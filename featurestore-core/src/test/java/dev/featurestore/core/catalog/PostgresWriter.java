package dev.featurestore.core.catalog;

import dev.featurestore.CommitMetrics;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.MetricsListener;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer process for {@link PostgresCatalogTest}: opens the store through the PostgreSQL
 * catalog, waits for the common start time, then appends {@code commits} batches of {@code rows}
 * rows, each row stamped with its writer and commit number. Prints one {@code COMMITTED} line per
 * commit and a final {@code ATTEMPTS} line (commit attempts, from the commit reports).
 *
 * <p>Arguments: table warehouse writerId commits rows startAtMillis. The database comes from the
 * {@code FEATURESTORE_TEST_POSTGRES_*} environment variables (the password never on the command
 * line).
 */
public final class PostgresWriter {
  private PostgresWriter() {}

  public static void main(String[] args) throws Exception {
    String table = args[0];
    Path warehouse = Path.of(args[1]);
    int writer = Integer.parseInt(args[2]);
    int commits = Integer.parseInt(args[3]);
    int rows = Integer.parseInt(args[4]);
    long startAt = Long.parseLong(args[5]);
    AtomicLong attempts = new AtomicLong();
    Map<String, String> env = System.getenv();
    try (FeatureStore store = FeatureStore.builder()
        .jdbcCatalog(env.get("FEATURESTORE_TEST_POSTGRES_URL"), env.get("FEATURESTORE_TEST_POSTGRES_USER"),
            env.get("FEATURESTORE_TEST_POSTGRES_PASSWORD"))
        .warehouseLocation(warehouse.toString())
        .metricsListener(new MetricsListener() {
          @Override
          public void onCommit(CommitMetrics commit) {
            attempts.addAndGet(commit.attempts());
          }
        })
        .build()) {
      FeatureTable features = store.table(table);
      long wait = startAt - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      for (int c = 0; c < commits; c++) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
          batch.add(Map.of("writer", writer, "commit_no", c, "row_no", r, "value", writer * 1000.0 + c));
        }
        long snapshot = features.append(batch).snapshotId().orElseThrow();
        System.out.println("COMMITTED " + writer + " " + c + " " + snapshot);
      }
    }
    System.out.println("ATTEMPTS " + attempts.get());
  }
}
