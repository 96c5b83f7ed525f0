package dev.featurestore;

import java.util.List;
import java.util.Optional;

/**
 * A slice written as Parquet.
 *
 * @param location where the file was written
 * @param rows rows written
 * @param bytes file size
 * @param lineage where the rows came from
 */
public record ExportResult(String location, long rows, long bytes, Lineage lineage) {

  /**
   * Where an exported slice came from; stored as JSON in the file's key-value metadata under
   * {@code featurestore.lineage}.
   *
   * @param table the source table
   * @param snapshotId the snapshot read
   * @param filter the row filter, as text ({@code true} when none)
   * @param columns the projected columns
   * @param exportedAt ISO-8601 time of the export
   */
  public record Lineage(TableId table, long snapshotId, String filter, List<String> columns, String exportedAt) {
    public Lineage {
      columns = List.copyOf(columns);
    }

    /** The snapshot, if the table had one. */
    public Optional<Long> snapshot() {
      return snapshotId < 0 ? Optional.empty() : Optional.of(snapshotId);
    }
  }
}
