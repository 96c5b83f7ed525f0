package dev.featurestore.benchmarks;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.iceberg.data.Record;

/**
 * Feature-events rows for the baselines, drawn from the same distribution that {@code
 * Ingest.synthetic} documents (entity ids from a bounded key space, event times over the last
 * week, two gaussian features). Values need not equal ours row for row; schema, row count and
 * partition spread do.
 */
final class SyntheticRows {
  static final long ENTITY_KEYS = 100_000;
  private static final long WEEK_MICROS = 7L * 24 * 3600 * 1_000_000;

  private final SplittableRandom random;
  private final long nowMicros;

  SyntheticRows(long seed, Instant now) {
    this.random = new SplittableRandom(seed);
    this.nowMicros = ChronoUnit.MICROS.between(Instant.EPOCH, now);
  }

  /** Fills {@code record} (feature_events schema) with the next row; the record is reused. */
  void fill(Record record) {
    record.set(0, random.nextLong(ENTITY_KEYS));
    record.set(1, toOffsetDateTime(nowMicros - random.nextLong(WEEK_MICROS)));
    record.set(2, gaussian());
    record.set(3, gaussian() * 2.0 + 1.0);
  }

  /**
   * {@code count} rows as maps, for the commit benchmark: event times within one hour starting at
   * {@code hourStart}, so a small commit lands in one daily partition, as recent events do.
   */
  List<Map<String, Object>> recentRows(int count, Instant hourStart) {
    long start = ChronoUnit.MICROS.between(Instant.EPOCH, hourStart);
    List<Map<String, Object>> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("entity_id", random.nextLong(ENTITY_KEYS));
      row.put("event_time", toOffsetDateTime(start + random.nextLong(3_600_000_000L)));
      row.put("feature_a", gaussian());
      row.put("feature_b", gaussian() * 2.0 + 1.0);
      rows.add(row);
    }
    return rows;
  }

  private double gaussian() {
    // Box-Muller: SplittableRandom has no nextGaussian on Java 17
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  private static OffsetDateTime toOffsetDateTime(long micros) {
    return OffsetDateTime.ofInstant(
        Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L),
        ZoneOffset.UTC);
  }
}
