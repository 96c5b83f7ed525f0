package dev.featurestore.core.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BatchLookupResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.LookupResult;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.PointLookup;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookups on a table partitioned by day and bucket(entity_id, 4), bloom filter on entity_id, small
 * row groups. Entity e has a row on day d (0..4) when (e + d) is even and e does not end in 7;
 * feature_a = e * 10 + d.
 */
class LookupTest {
  private static final int ENTITIES = 8_000;
  private static final OffsetDateTime DAY0 = OffsetDateTime.parse("2026-01-01T00:00:00Z");
  @TempDir static Path dir;
  private static FeatureStore store;
  private static FeatureTable table;
  private static final List<Long> snapshots = new ArrayList<>();

  @BeforeAll
  static void setUp() {
    store = FeatureStore.openLocal(dir);
    table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .partitionBy(PartitionSpecBuilder.spec(b -> b.day("event_time").bucket("entity_id", 4)))
        .bloomFilter("entity_id", 1_000)
        .property("write.parquet.row-group-size-bytes", "8192")
        .property("write.parquet.row-group-check-min-record-count", "50")
        .property("write.parquet.row-group-check-max-record-count", "200")
        .build());
    for (int day = 0; day < 5; day++) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (long e = 0; e < ENTITIES; e++) {
        if (present(e, day)) {
          rows.add(Map.of("entity_id", e, "event_time", time(e, day), "feature_a", e * 10.0 + day));
        }
      }
      snapshots.add(table.append(rows).snapshotId().orElseThrow());
    }
  }

  @AfterAll
  static void tearDown() {
    store.close();
  }

  private static boolean present(long e, int day) {
    return (e + day) % 2 == 0 && e % 10 != 7;
  }

  private static OffsetDateTime time(long e, int day) {
    return DAY0.plusDays(day).plusHours(e % 24);
  }

  private static double featureA(LookupResult result) {
    return (Double) result.row().orElseThrow().get("feature_a");
  }

  @Test
  void latestRow_readsOneFile_andOnlySomeOfItsRowGroups() {
    PointLookup lookup = table.lookup("entity_id").latestBy("event_time");
    LookupResult even = lookup.get(10L);
    assertThat(featureA(even)).isEqualTo(104.0); // day 4
    assertThat(even.stats().dataFiles()).isEqualTo(20);
    assertThat(even.stats().filesAfterPruning()).isEqualTo(5); // its bucket, every day
    assertThat(even.stats().filesRead()).isEqualTo(1); // the newest day has it; older files cannot hold a later row
    assertThat(even.stats().rowGroupsRead()).isLessThan(even.stats().rowGroupsChecked());
    long fileRows = table.explainPruning(org.apache.iceberg.expressions.Expressions.equal("entity_id", 10L))
        .kept().stream().mapToLong(f -> f.recordCount()).max().orElseThrow();
    assertThat(even.stats().rowsScanned()).isPositive().isLessThan(fileRows);

    LookupResult odd = lookup.get(11); // an int converts to the long key
    assertThat(featureA(odd)).isEqualTo(113.0); // day 3
    assertThat(odd.stats().filesRead()).isLessThanOrEqualTo(2); // day 4's bloom filter says no (up to 1% false positives)
    System.out.println("lookup stats: " + even.stats() + " / " + odd.stats());
  }

  @Test
  void absentKeys_readNothing() {
    PointLookup lookup = table.lookup("entity_id").latestBy("event_time");
    LookupResult outOfRange = lookup.get(1_000_000L);
    assertThat(outOfRange.row()).isEmpty();
    assertThat(outOfRange.stats().filesAfterPruning()).isZero();
    int read = 0;
    for (long e = 7; e < 2_000; e += 10) { // in range, in no file: bloom filters answer
      LookupResult absent = lookup.get(e);
      assertThat(absent.row()).isEmpty();
      assertThat(absent.stats().filesAfterPruning()).isLessThanOrEqualTo(5); // its bucket; min/max may drop more
      read += absent.stats().filesRead();
    }
    assertThat(read).as("files read for 200 absent keys x 5 candidate files").isLessThanOrEqualTo(20);
  }

  @Test
  void asOfTime_asOfSnapshot_select() {
    PointLookup lookup = table.lookup("entity_id").latestBy("event_time");
    assertThat(featureA(lookup.atOrBefore(DAY0.plusDays(2).plusHours(23).toInstant()).get(10L))).isEqualTo(102.0);
    assertThat(lookup.atOrBefore(DAY0.minusDays(1).toInstant()).get(10L).row()).isEmpty();
    assertThat(featureA(lookup.asOfSnapshot(snapshots.get(1)).get(10L))).isEqualTo(100.0);
    assertThat(lookup.asOf(Instant.now()).get(10L).stats().snapshotId()).isEqualTo(snapshots.get(4));
    assertThat(lookup.select("feature_a").get(12L).row().orElseThrow()).containsOnlyKeys("feature_a");
    // without latestBy: the row committed last
    assertThat(featureA(table.lookup("entity_id").get(10L))).isEqualTo(104.0);
  }

  @Test
  void batch_matchesSingleLookups_andAFullScan() {
    PointLookup lookup = table.lookup("entity_id").latestBy("event_time");
    Map<Long, Double> latest = new HashMap<>();
    try (var rows = table.query().select("entity_id", "event_time", "feature_a").execute()) {
      Map<Long, OffsetDateTime> times = new HashMap<>();
      rows.forEach(row -> {
        long e = (Long) row.get("entity_id");
        OffsetDateTime t = (OffsetDateTime) row.get("event_time");
        if (!times.containsKey(e) || t.isAfter(times.get(e))) {
          times.put(e, t);
          latest.put(e, (Double) row.get("feature_a"));
        }
      });
    }
    Random random = new Random(3);
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long e = random.nextInt(ENTITIES + 100);
      keys.add(e);
      LookupResult one = lookup.get(e);
      assertThat(one.row().map(r -> (Double) r.get("feature_a"))).as("key " + e).isEqualTo(java.util.Optional.ofNullable(latest.get(e)));
    }
    BatchLookupResult batch = lookup.getAll(keys);
    for (Object key : keys) {
      Double expected = latest.get((Long) key);
      if (expected == null) {
        assertThat(batch.rows()).doesNotContainKey(key);
      } else {
        assertThat(batch.rows().get(key).get("feature_a")).isEqualTo(expected);
      }
    }
    assertThat(batch.stats().keys()).isEqualTo(40);
  }

  @Test
  void badArguments_fail() {
    assertThatThrownBy(() -> table.lookup("nope")).hasMessage("Cannot look up rows: unknown key column: nope");
    assertThatThrownBy(() -> table.lookup("entity_id").get("not-a-number"))
        .hasMessageContaining("not-a-number");
    assertThatThrownBy(() -> table.lookup("entity_id").atOrBefore(Instant.now()).get(1L))
        .hasMessage("Cannot look up rows as of a time: no latestBy column set");
  }
}
