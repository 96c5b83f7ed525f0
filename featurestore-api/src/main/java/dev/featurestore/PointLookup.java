package dev.featurestore;

import java.time.Instant;
import java.util.Collection;

/**
 * Finds the latest row of an entity key: the library's online-serving read. A lookup prunes data
 * files by partition (a bucket or identity partition on the key) and by column statistics, then
 * checks each remaining row group's statistics and Parquet bloom filter and reads only the row
 * groups that can hold the key. Footers and bloom filters of data files are cached (data files
 * never change), so repeated lookups touch storage only for the row groups they read.
 *
 * <pre>{@code
 * PointLookup features = table.lookup("entity_id").latestBy("event_time");
 * LookupResult hit = features.get(42L);
 * hit.row().ifPresent(row -> System.out.println(row.get("feature_a") + " in " + hit.stats().latency()));
 * BatchLookupResult many = features.asOf(Instant.parse("2026-01-05T00:00:00Z")).getAll(List.of(1L, 2L, 3L));
 * }</pre>
 *
 * <p>Immutable: every refinement returns a new lookup; a lookup may be shared between threads.
 * "Latest" means the highest value of the {@link #latestBy(String)} column; without one (or on a
 * tie), the row committed last. Delete files are applied.
 */
public interface PointLookup {
  /** The column whose highest value makes a row the latest (typically the event time). */
  PointLookup latestBy(String column);

  /** Only rows whose {@link #latestBy(String)} column is at or before {@code time} (a point-in-time value). */
  PointLookup atOrBefore(Instant time);

  /** Reads the current snapshot (the default). */
  PointLookup current();

  /** Reads a snapshot by id. */
  PointLookup asOfSnapshot(long snapshotId);

  /** Reads the snapshot that was current at {@code time}. */
  PointLookup asOf(Instant time);

  /** Returns only these columns (default: all). */
  PointLookup select(String... columns);

  /**
   * The latest row of one key.
   *
   * @throws InvalidArgumentException if the key is null or does not convert to the key column's type
   *     as ingest would convert it ({@code Instant}, {@code OffsetDateTime} or ISO text for a
   *     timestamptz, {@code LocalDate} for a date, ...): {@code Cannot look up rows of table <t>: key
   *     does not convert to column <c> (<type>): <key>}
   * @throws InvalidArgumentException if the key is NaN (NaN equals no value under IEEE 754, as in
   *     filters; find NaN rows with {@code query().filter(Expressions.isNaN(column))})
   * @throws SnapshotNotFoundException if the version does not resolve
   */
  LookupResult get(Object key);

  /**
   * The latest row of each key, reading each candidate file once.
   *
   * @throws InvalidArgumentException if a key is null, NaN or does not convert, as {@link #get(Object)}
   */
  BatchLookupResult getAll(Collection<?> keys);
}
