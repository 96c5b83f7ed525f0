package dev.featurestore.examples;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.duckdb.DuckQueries;
import dev.featurestore.duckdb.SqlEngine;
import dev.featurestore.duckdb.SqlExport;
import dev.featurestore.duckdb.TrainingSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * A point-in-time correct training set on the embedded default (a local directory, no network):
 * churn labels joined, as of each label's time, to a user-activity feature table with a 2-day
 * time-to-live; then a late feature write that does not change the set rebuilt at the recorded
 * snapshot; then the set exported as Parquet with its lineage.
 *
 * <p>Run it from the repository root with {@code ./mvnw -q -B -Ptraining-example -DskipTests
 * verify}; pass a directory as the first argument to keep the store elsewhere (default {@code
 * training-example-store}).
 */
public final class TrainingSetExample {
  private static final TableId ACTIVITY = TableId.of("features", "user_activity");
  private static final TableId LABELS = TableId.of("features", "churn_labels");
  private static final OffsetDateTime T0 = OffsetDateTime.parse("2026-11-01T00:00:00Z");

  private TrainingSetExample() {}

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : "training-example-store").toAbsolutePath();
    System.out.println("== featurestore training-set example, store at " + root);
    try (FeatureStore store = FeatureStore.openLocal(root);
         SqlEngine sql = DuckQueries.builder(store).threads(2).memoryLimit("512MB").build()) {
      store.dropTable(ACTIVITY, true);
      store.dropTable(LABELS, true);
      FeatureTable activity = store.createTable(TableDefinition.builder(ACTIVITY, new Schema(
          Types.NestedField.required(1, "user_id", Types.LongType.get()),
          Types.NestedField.required(2, "updated_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "clicks_7d", Types.LongType.get()),
          Types.NestedField.optional(4, "spend_7d", Types.DoubleType.get()))).build());
      FeatureTable labels = store.createTable(TableDefinition.builder(LABELS, new Schema(
          Types.NestedField.required(1, "user_id", Types.LongType.get()),
          Types.NestedField.required(2, "label_time", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "churned", Types.BooleanType.get()))).build());

      // features: users 1-3 refreshed once a day for 5 days; user 3 stops after day 1
      List<Map<String, Object>> features = new ArrayList<>();
      for (int day = 0; day < 5; day++) {
        for (long user = 1; user <= 3; user++) {
          if (user == 3 && day > 1) {
            continue;
          }
          features.add(Map.of("user_id", user, "updated_at", T0.plusDays(day).plusHours(6),
              "clicks_7d", 10L * user + day, "spend_7d", 2.5 * user * (day + 1)));
        }
      }
      long featuresSnapshot = activity.append(features).snapshotId().getAsLong();
      labels.append(List.of(
          label(1, T0.plusDays(2).plusHours(6), false),   // exactly at a feature time: that row counts
          label(1, T0.plusDays(3).plusHours(5), false),   // one hour before the day-3 refresh: day 2's
          label(2, T0.plusHours(1), true),                // before user 2's first features: nulls
          label(3, T0.plusDays(2), false),                // day 1 at 06:00 is 18h old: within the TTL
          label(3, T0.plusDays(4), true),                 // 66h old: past the 2-day TTL, nulls
          label(4, T0.plusDays(1), false)));              // a user without features: nulls

      TrainingSet set = sql.trainingSet()
          .labels(labels.query(), "user_id", "label_time")
          .features("act", activity.query().asOfSnapshot(featuresSnapshot),
              "user_id", "updated_at", Duration.ofDays(2), "clicks_7d", "spend_7d", "updated_at")
          .build();
      List<Map<String, Object>> rows = set.toList();
      System.out.println("training set (" + rows.size() + " rows), features as of snapshot " + featuresSnapshot + ":");
      for (Map<String, Object> row : rows) {
        System.out.printf("  user %s at %s churned=%s -> clicks_7d=%s spend_7d=%s (from %s)%n", row.get("user_id"),
            row.get("label_time"), row.get("churned"), row.get("act__clicks_7d"), row.get("act__spend_7d"),
            row.get("act__updated_at"));
      }

      // a late write of day-1 features for user 2 changes the current table, not the recorded set
      activity.append(List.of(Map.of("user_id", 2L, "updated_at", T0.plusMinutes(30), "clicks_7d", 99L,
          "spend_7d", 0.0)));
      boolean same = set.toList().equals(rows);
      System.out.println("rebuilt at snapshot " + featuresSnapshot + " after a late write: "
          + (same ? "identical" : "DIFFERENT"));

      Path out = root.resolve("exports").resolve("churn-train.parquet");
      Files.deleteIfExists(out);
      SqlExport export = set.exportParquet(out);
      System.out.println("exported " + export.rows() + " rows, " + export.bytes() + " bytes to " + export.location());
      System.out.println("lineage: " + export.lineage());
    }
  }

  private static Map<String, Object> label(long user, OffsetDateTime time, boolean churned) {
    return Map.of("user_id", user, "label_time", time, "churned", churned);
  }
}
