package dev.featurestore.duckdb;

import java.nio.file.Path;

/**
 * A query written to Parquet.
 *
 * @param file the file written
 * @param rows rows written
 * @param bytes the file's size
 * @param lineage the lineage stored in the file (JSON)
 * @param stats what the scans planned and read
 */
public record SqlExport(Path file, long rows, long bytes, String lineage, SqlStats stats) {}
