package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.ReadVersion;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.cdc.CdcPipeline;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store the library wrote, read by Spark at every snapshot and every ref, equals the library's
 * own read row for row: schema evolution (added, renamed, widened and dropped columns), partition
 * evolution, row deletes as deletion vectors, tags and branches, and a CDC change log and current
 * state (merge-on-read, with deletion vectors).
 */
class SparkReadParityTest {
  private static final TableId FEATURES = TableId.of("features", "users");

  @TempDir Path dir;

  private static Map<String, Object> user(Random random, long id, Instant time) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("name", random.nextInt(5) == 0 ? null : "user-" + id);
    double score = random.nextDouble();
    row.put("score", random.nextInt(10) == 0 ? null : random.nextInt(10) == 0 ? Double.NaN : score);
    row.put("ts", time.plusSeconds(random.nextInt(86_400)));
    row.put("day", LocalDate.of(2026, 1, 1 + random.nextInt(28)));
    row.put("amount", BigDecimal.valueOf(random.nextInt(100_000), 2));
    row.put("flag", random.nextBoolean());
    row.put("small", random.nextInt(1000));
    return row;
  }

  private static List<Map<String, Object>> users(Random random, long from, int count, Instant time) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      rows.add(user(random, id, time));
    }
    return rows;
  }

  /** Spark's read of {@code query} and the library's, as sorted rows in Spark's column order. */
  private static void assertSameRows(SparkFeatureStore spark, TimeTravelQuery query, String what) {
    long start = System.nanoTime();
    Dataset<Row> rows = spark.read(query);
    List<String> columns = RowText.columns(rows);
    assertThat(columns).as(what + ": columns").containsExactlyElementsOf(
        query.columns().orElseGet(() -> query.schema().columns().stream().map(Types.NestedField::name).toList()));
    List<List<String>> sparkRows = RowText.of(rows);
    long sparkDone = System.nanoTime();
    assertThat(sparkRows).as(what).isEqualTo(RowText.of(query, columns));
    System.out.printf("%s: %d rows, spark %d ms, library %d ms%n", what, sparkRows.size(), (sparkDone - start) / 1_000_000,
        (System.nanoTime() - sparkDone) / 1_000_000);
  }

  @Test
  void everySnapshotAndRef_ofAnEvolvedTableWithDeletionVectors_readsAsTheLibraryReadsIt() {
    Random random = new Random(19);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = store.createTable(TableDefinition.builder(FEATURES, new Schema(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get()),
              Types.NestedField.optional(3, "score", Types.DoubleType.get()),
              Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()),
              Types.NestedField.optional(5, "day", Types.DateType.get()),
              Types.NestedField.optional(6, "amount", Types.DecimalType.of(10, 2)),
              Types.NestedField.optional(7, "flag", Types.BooleanType.get()),
              Types.NestedField.optional(8, "small", Types.IntegerType.get())))
          .formatVersion(3).build());
      Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
      table.append(users(random, 0, 40, t0));
      long first = table.snapshots().current().orElseThrow().snapshotId();
      table.snapshots().createTag("v1", first);

      table.evolveSchema().addColumn("extra", Types.StringType.get()).renameColumn("name", "label")
          .widenColumn("small", Types.LongType.get()).commit();
      List<Map<String, Object>> more = users(random, 40, 20, t0.plusSeconds(86_400));
      more.forEach(r -> {
        r.put("label", r.remove("name"));
        r.put("extra", "x" + r.get("id"));
      });
      table.append(more);
      table.evolvePartitionSpec().identity("flag").bucket("id", 4).commit();
      List<Map<String, Object>> partitioned = users(random, 60, 20, t0.plusSeconds(2 * 86_400));
      partitioned.forEach(r -> r.put("label", r.remove("name")));
      table.append(partitioned);
      table.deleteRows().where(Expressions.lessThan("id", 7L)).execute();
      table.deleteRows().where(Expressions.in("id", 41L, 62L, 79L)).execute();
      long beforeBranch = table.snapshots().current().orElseThrow().snapshotId();
      table.snapshots().createBranch("dev", beforeBranch);
      List<Map<String, Object>> onDev = users(random, 100, 10, t0.plusSeconds(3 * 86_400));
      onDev.forEach(r -> r.put("label", r.remove("name")));
      table.ingest().rows(onDev).toBranch("dev").commit();
      table.evolveSchema().dropColumn("extra").commit();
      List<Map<String, Object>> last = users(random, 200, 10, t0.plusSeconds(4 * 86_400));
      last.forEach(r -> r.put("label", r.remove("name")));
      table.append(last);

      SparkFeatureStore spark = SharedSpark.attach(store);
      List<SnapshotInfo> history = table.snapshots().history();
      assertThat(history).hasSizeGreaterThanOrEqualTo(6);
      for (SnapshotInfo snapshot : history) {
        assertSameRows(spark, table.query().asOfSnapshot(snapshot.snapshotId()), "snapshot " + snapshot.snapshotId());
      }
      for (String ref : List.of("v1", "dev", "main")) {
        assertSameRows(spark, table.query().atRef(ref), "ref " + ref);
      }
      assertSameRows(spark, table.query(), "current");
      assertSameRows(spark, table.query().asOf(history.get(1).timestamp()), "as of " + history.get(1).timestamp());
      TimeTravelQuery filtered = table.query().select("id", "label", "score")
          .filter(Expressions.or(Expressions.greaterThan("score", 0.5), Expressions.notEqual("label", "user-70")));
      assertSameRows(spark, filtered, "a filter over nulls and NaN");
      assertSameRows(spark, table.query().asOfSnapshot(first).filter(Expressions.lessThanOrEqual("ts",
          t0.plusSeconds(43_200).toString())), "a timestamp filter on an old snapshot");
      assertThat(spark.read(FEATURES, ReadVersion.ref("v1")).count()).isEqualTo(40);

      assertThatThrownBy(() -> spark.read(table.query().asOfSnapshot(42L)))
          .isInstanceOf(SnapshotNotFoundException.class)
          .hasMessage("Cannot read table features.users: unknown snapshot id: 42");
      assertThatThrownBy(() -> spark.read(table.query().asOfSnapshot(first).select("label")))
          .isInstanceOf(NotFoundException.class)
          .hasMessage("Cannot select column: column does not exist in snapshot " + first + ": label");
    }
  }

  @Test
  void cdcChangeLogAndCurrentState_readAsTheLibraryReadsThem_atEverySnapshot() {
    TableId log = TableId.of("cdc", "events");
    TableId state = TableId.of("cdc", "docs");
    Random random = new Random(5);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = CdcPipeline.builder(store).changeLog(log).currentState(state)
            .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO).withoutMaintenance().build()) {
      int version = 0;
      for (int batch = 0; batch < 3; batch++) {
        for (int i = 0; i < 20; i++) {
          int doc = random.nextInt(15);
          if (random.nextInt(4) == 0) {
            cdc.delete("users", "u" + doc);
          } else {
            cdc.update("users", "u" + doc, Map.of("v", ++version, "name", "n" + doc));
          }
        }
        cdc.flush();
      }
      SparkFeatureStore spark = SharedSpark.attach(store);
      for (TableId id : List.of(log, state)) {
        FeatureTable table = store.table(id);
        for (SnapshotInfo snapshot : table.snapshots().history()) {
          assertSameRows(spark, table.query().asOfSnapshot(snapshot.snapshotId()), id + " at " + snapshot.snapshotId());
        }
        assertSameRows(spark, table.query(), id + " now");
      }
      assertThat(spark.read(store.table(state).query()).count()).isBetween(1L, 15L);
    }
  }
}
