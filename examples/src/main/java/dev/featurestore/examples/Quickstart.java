package dev.featurestore.examples;

import dev.featurestore.ExportResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.ObjectStorage;
import dev.featurestore.QueryResult;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * The quickstart: the whole versioned-feature-table journey on the embedded default (a local
 * directory, no credentials, no network).
 *
 * <p>Run it from the repository root with {@code ./mvnw -q -B -Pquickstart -DskipTests verify};
 * pass a directory as the first argument to keep the store elsewhere (default {@code
 * quickstart-store}), and {@code --b2} to keep the tables in the B2 bucket named by the {@code
 * B2_*} environment variables (the catalog stays in the directory).
 */
public final class Quickstart {
  private Quickstart() {}

  public static void main(String[] args) throws Exception {
    boolean onB2 = java.util.Arrays.asList(args).contains("--b2");
    String dir = java.util.Arrays.stream(args).filter(a -> !a.startsWith("--")).findFirst().orElse("quickstart-store");
    Path root = Path.of(dir).toAbsolutePath();
    FeatureStoreConfig.Builder config = FeatureStore.builder().root(root);
    if (onB2) {
      // tables in the bucket named by the B2_* environment variables; the catalog stays in root
      config.objectStorage(ObjectStorage.fromEnvironment());
    }
    System.out.println("== featurestore quickstart, store at " + root + (onB2 ? " (tables on B2)" : ""));

    try (FeatureStore store = config.build()) {
      // Start from a clean demo table on every run.
      store.dropTable(SyntheticFeatures.TABLE_ID, true);

      // 1. Create the table, partitioned by day of event_time.
      FeatureTable events = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
              .partitionBy(schema -> PartitionSpec.builderFor(schema).day("event_time").build())
              .build());
      System.out.println("created " + events.id() + " at " + events.location());

      // 2. Append a synthetic batch, twice. Each ingest is one atomic commit.
      IngestResult first = events.ingest().synthetic(100_000, 1).commit();
      report("append #1", first);
      IngestResult second = events.ingest().synthetic(50_000, 2).commit();
      report("append #2", second);

      // 3. Evolve the schema: add feature_c (no data file is rewritten).
      events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean of feature_a").commit();
      System.out.println("schema now: " + events.schema().columns().stream().map(Types.NestedField::name).toList());

      // 4. Append again; the new batch fills feature_c.
      IngestResult third = events.ingest().synthetic(25_000, 3).commit();
      report("append #3", third);

      // 5. The snapshot history, with per-commit row deltas.
      System.out.println();
      System.out.println("snapshot history:");
      System.out.printf("  %-20s %-8s %10s %10s %10s  %s%n", "snapshot", "op", "+rows", "-rows", "total", "committed");
      List<SnapshotInfo> history = events.snapshots().history();
      for (SnapshotInfo s : history) {
        System.out.printf("  %-20d %-8s %10d %10d %10d  %s%s%n", s.snapshotId(), s.operation(),
            s.addedRows(), s.deletedRows(), s.totalRows(), s.timestamp(), s.current() ? "  <- current" : "");
      }

      // 6. Time travel: read the first snapshot back, with the schema it had.
      long firstSnapshot = first.snapshotId().orElseThrow();
      try (QueryResult rows = events.query().asOfSnapshot(firstSnapshot).execute()) {
        long count = 0;
        for (var ignored : rows) {
          count++;
        }
        System.out.println();
        System.out.println("snapshot " + firstSnapshot + " reads " + count + " rows with columns "
            + rows.schema().columns().stream().map(Types.NestedField::name).toList());
      }
      long today = events.query()
          .filter(Expressions.greaterThanOrEqual("event_time", Instant.now().minus(Duration.ofDays(1)).toString()))
          .count();
      System.out.println("rows of the last 24 hours in the current snapshot: " + today);

      // 7. Roll back to the second append.
      long secondSnapshot = second.snapshotId().orElseThrow();
      SnapshotInfo rolledBack = events.snapshots().rollbackTo(secondSnapshot);
      System.out.println("rolled back to " + rolledBack.snapshotId() + ": table has "
          + events.query().count() + " rows");

      // 8. Export a filtered, projected slice as Parquet, with its lineage.
      Path exportFile = root.resolve("exports").resolve("high-feature-a-" + System.currentTimeMillis() + ".parquet");
      Files.createDirectories(exportFile.getParent());
      ExportResult export = events.query()
          .select("entity_id", "event_time", "feature_a")
          .filter(Expressions.greaterThan("feature_a", 1.0))
          .exportParquet(exportFile);
      System.out.println("exported " + export.rows() + " rows (" + export.bytes() + " bytes) to " + export.location());
      System.out.println("  lineage: " + export.lineage());

      // 9. The table's statistics.
      TableStats stats = events.stats();
      System.out.println();
      System.out.println("stats: rows=" + stats.rows() + " dataFiles=" + stats.dataFiles()
          + " snapshots=" + stats.snapshots());
      System.out.printf("  bytes: data=%d manifests=%d metadata=%d total=%d%n",
          stats.dataBytes(), stats.manifestBytes(), stats.metadataBytes(), stats.totalBytes());
      System.out.printf("  write amplification: %.3f (cumulative)%n", stats.writeAmplification());
      for (TableStats.CommitStats c : stats.commits()) {
        System.out.printf("  commit %d: +%d rows, data %d B, metadata %d B, amplification %.3f%n",
            c.snapshotId(), c.addedRows(), c.dataBytesWritten(), c.metadataBytesWritten(), c.writeAmplification());
      }
    }
    System.out.println("== done");
  }

  private static void report(String what, IngestResult result) {
    System.out.printf("%s: %d rows in %d files (one per day partition), snapshot %d, %d ms%n", what,
        result.rows(), result.dataFiles(), result.snapshotId().orElse(-1), result.duration().toMillis());
  }
}
