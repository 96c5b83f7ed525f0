package dev.featurestore;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The demo table used by the quickstart and the benchmarks: {@code features.feature_events} with
 * {@code entity_id}, {@code event_time}, {@code feature_a} and {@code feature_b}.
 * {@link Ingest#synthetic(long, long)} fills any table with generated rows; for this schema it
 * generates realistic values (entity ids from a bounded key space, event times over the last
 * week, two gaussian features).
 */
public final class SyntheticFeatures {
  /** {@code features.feature_events}. */
  public static final TableId TABLE_ID = TableId.of("features", "feature_events");

  private SyntheticFeatures() {}

  /** The feature-events schema. */
  public static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "entity_id", Types.LongType.get(), "entity key"),
        Types.NestedField.required(2, "event_time", Types.TimestampType.withZone(), "when the features were observed"),
        Types.NestedField.optional(3, "feature_a", Types.DoubleType.get(), "feature a"),
        Types.NestedField.optional(4, "feature_b", Types.DoubleType.get(), "feature b"));
  }
}
