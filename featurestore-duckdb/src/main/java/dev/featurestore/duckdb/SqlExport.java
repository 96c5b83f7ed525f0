package dev.featurestore.duckdb;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A query written to Parquet, on local disk or in the bucket's {@code exports/}.
 *
 * @param location where the file is: an absolute local path, or {@code s3://<bucket>/exports/<name>.parquet}
 * @param rows rows written
 * @param bytes the file's size
 * @param lineage the lineage stored in the file's footer under {@code featurestore.lineage} (JSON:
 *     the SQL, each table's id, snapshot id, filter and columns, and for a training set its
 *     parameters)
 * @param stats what the scans planned and read
 */
public record SqlExport(String location, long rows, long bytes, String lineage, SqlStats stats) {
  /** The local file, for an export to local disk; empty for one in the bucket. */
  public Optional<Path> file() {
    return location.startsWith("/") ? Optional.of(Path.of(location)) : Optional.empty();
  }
}
