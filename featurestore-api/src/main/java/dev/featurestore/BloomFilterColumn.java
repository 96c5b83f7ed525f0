package dev.featurestore;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A column that gets a Parquet bloom filter in every row group of new data files.
 *
 * @param column the column name
 * @param ndv the expected number of distinct values per row group, which sizes the filter (without
 *     it every filter takes {@code write.parquet.bloom-filter-max-bytes}, 1 MiB by default)
 * @param fpp the false-positive rate the filter is sized for
 */
public record BloomFilterColumn(String column, OptionalLong ndv, double fpp) {
  /** Iceberg's table property prefix that turns a column's filter on. */
  public static final String ENABLED_PREFIX = "write.parquet.bloom-filter-enabled.column.";
  /** Iceberg's table property prefix for a column's distinct-value hint. */
  public static final String NDV_PREFIX = "write.parquet.bloom-filter-ndv.column.";
  /** Iceberg's table property prefix for a column's false-positive rate. */
  public static final String FPP_PREFIX = "write.parquet.bloom-filter-fpp.column.";
  /** Iceberg's default false-positive rate. */
  public static final double DEFAULT_FPP = 0.01;

  /** The bloom-filter columns that table properties turn on, by column name, sorted. */
  public static Map<String, BloomFilterColumn> fromProperties(Map<String, String> properties) {
    Map<String, BloomFilterColumn> columns = new TreeMap<>();
    properties.forEach((key, value) -> {
      if (key.startsWith(ENABLED_PREFIX) && Boolean.parseBoolean(value)) {
        String column = key.substring(ENABLED_PREFIX.length());
        String ndv = properties.get(NDV_PREFIX + column);
        String fpp = properties.get(FPP_PREFIX + column);
        columns.put(column, new BloomFilterColumn(column,
            ndv == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(ndv.trim())),
            fpp == null ? DEFAULT_FPP : Double.parseDouble(fpp.trim())));
      }
    });
    return columns;
  }

  /**
   * Checks a bloom filter setting against a schema; the one check behind {@code
   * TableDefinition.Builder.bloomFilter} and {@code FeatureTable.updateBloomFilters().enable}.
   *
   * @throws InvalidArgumentException if the column is unknown or not primitive, {@code ndv <= 0},
   *     or {@code fpp} is not in (0, 1)
   */
  public static void check(org.apache.iceberg.Schema schema, String column, long ndv, double fpp) {
    InvalidArgumentException.requireNonNull(schema, "add bloom filter", "schema");
    InvalidArgumentException.requireNonNull(column, "add bloom filter", "column");
    org.apache.iceberg.types.Types.NestedField field = schema.findField(column);
    InvalidArgumentException.check(field != null, "Cannot add bloom filter: unknown column: %s", column);
    InvalidArgumentException.check(field.type().isPrimitiveType(), "Cannot add bloom filter: column is not primitive: %s",
        column);
    InvalidArgumentException.check(ndv > 0, "Cannot add bloom filter on %s: ndv must be positive: %s", column, ndv);
    InvalidArgumentException.check(fpp > 0 && fpp < 1, "Cannot add bloom filter on %s: fpp must be in (0, 1): %s",
        column, fpp);
  }
}
