package dev.featurestore;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One entity as an online view holds it: found (with its feature values), missing (no live row
 * for the key at the view's snapshot) or expired (a row, but its event time is older than the
 * view's TTL; no values are served).
 *
 * <p>Values are Iceberg's generic Java types for the column's current type ({@code Long},
 * {@code Integer}, {@code Double}, {@code Float}, {@code Boolean}, {@code String},
 * {@code OffsetDateTime}, {@code LocalDateTime}, {@code LocalDate}, {@code LocalTime},
 * {@code BigDecimal}, {@code UUID}, {@code ByteBuffer}); a null value is absent from the map
 * (so {@code values().containsKey(f)} is false for it) while the feature is in
 * {@link OnlineView#features()}.
 *
 * @param key the key as asked for
 * @param status found, missing or expired
 * @param eventTime the event time of the row the values come from (found or expired)
 * @param values feature name to value, in the view's feature order; empty unless found
 * @param snapshotId the source snapshot the view reflected when this was read (-1: never materialized)
 */
public record OnlineRow(Object key, Status status, Optional<Instant> eventTime, Map<String, Object> values, long snapshotId) {
  public enum Status { FOUND, MISSING, EXPIRED }

  public OnlineRow {
    values = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(values));
  }

  public boolean found() {
    return status == Status.FOUND;
  }

  /** The value of one feature, if found and not null. */
  public Optional<Object> value(String feature) {
    return Optional.ofNullable(values.get(feature));
  }
}
