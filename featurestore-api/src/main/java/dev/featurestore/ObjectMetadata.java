package dev.featurestore;

import java.util.List;
import java.util.Optional;

/**
 * An object's metadata, including what reading it tells: its SHA-256 and, for Parquet, its schema
 * and row count.
 *
 * @param head what the HEAD request told
 * @param sha256 the SHA-256 of the content, lower-case hex, computed by streaming the object
 * @param parquet the Parquet footer's summary, when the object is a Parquet file
 */
public record ObjectMetadata(ObjectHead head, String sha256, Optional<ParquetSummary> parquet) {

  /**
   * What a Parquet footer says.
   *
   * @param schema the Parquet schema, as Parquet prints it
   * @param columns the top-level column names
   * @param rowCount rows in the file
   * @param rowGroups row groups in the file
   */
  public record ParquetSummary(String schema, List<String> columns, long rowCount, int rowGroups) {
    public ParquetSummary {
      columns = List.copyOf(columns);
    }
  }
}
