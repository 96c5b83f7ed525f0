package dev.featurestore;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The first rows of a data object (CSV, JSON or Parquet), read without downloading the rest
 * (Parquet: the footer and the first row group's pages).
 *
 * @param key the key, relative to the store's key prefix
 * @param format the format, from the key's extension
 * @param columns the column names: the CSV header, the keys of the first JSON objects in order of
 *     appearance, or the Parquet schema's top-level columns
 * @param rows the first rows, column name to value (CSV: strings; JSON: strings, numbers,
 *     booleans, lists and maps; Parquet: the values Iceberg's generic reader returns)
 * @param rowCount the object's total row count when it is known without reading it all (Parquet)
 * @param schema the Parquet schema as Parquet prints it (Parquet only)
 */
public record ObjectPreview(String key, Format format, List<String> columns, List<Map<String, Object>> rows,
    Optional<Long> rowCount, Optional<String> schema) {
  public ObjectPreview {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }

  /** The formats a preview reads. */
  public enum Format { CSV, JSON, PARQUET }
}
