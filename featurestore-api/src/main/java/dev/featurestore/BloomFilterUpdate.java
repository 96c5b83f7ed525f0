package dev.featurestore;

import java.util.Map;

/**
 * A change of a table's bloom-filter columns. It changes table properties only: files written
 * afterwards get (or lose) the filters; files already written keep what they have. Preview with
 * {@link #apply()}, land with {@link #commit()}; single-use.
 *
 * <pre>{@code
 * table.updateBloomFilters().enable("entity_id", 200_000).disable("feature_a").commit();
 * }</pre>
 */
public interface BloomFilterUpdate {
  /**
   * Turns on (or re-sizes) a column's filter, sized for {@code ndv} distinct values per row group at
   * the default false-positive rate (1%).
   *
   * @throws InvalidArgumentException if the column is unknown or not primitive, or {@code ndv <= 0}
   */
  BloomFilterUpdate enable(String column, long ndv);

  /** As {@link #enable(String, long)} with a false-positive rate in (0, 1). */
  BloomFilterUpdate enable(String column, long ndv, double fpp);

  /** Turns a column's filter off (and forgets its sizing). */
  BloomFilterUpdate disable(String column);

  /** The bloom-filter columns after this change, without committing. */
  Map<String, BloomFilterColumn> apply();

  /**
   * Commits the change and returns the bloom-filter columns.
   *
   * @throws InvalidStateException if already committed ({@code Cannot commit bloom filter update of
   *     table <id>: already committed})
   */
  Map<String, BloomFilterColumn> commit();
}
