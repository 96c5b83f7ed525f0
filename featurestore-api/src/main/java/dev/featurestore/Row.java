package dev.featurestore;

import java.util.Map;

/**
 * One row of a query result. Values use Iceberg's generic Java types: {@code Integer}, {@code
 * Long}, {@code Float}, {@code Double}, {@code Boolean}, {@code String}, {@code BigDecimal},
 * {@code LocalDate}, {@code LocalTime}, {@code LocalDateTime} (timestamp), {@code OffsetDateTime}
 * (timestamptz, UTC), {@code UUID}, {@code ByteBuffer}; nulls for missing values.
 */
public interface Row {
  /** The value of a column by position. */
  Object get(int position);

  /**
   * The value of a column by name.
   *
   * @throws InvalidArgumentException if the row has no such column
   */
  Object get(String column);

  /** The number of columns. */
  int size();

  /** Column name to value, in column order. */
  Map<String, Object> toMap();
}
