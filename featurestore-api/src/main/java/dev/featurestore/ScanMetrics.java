package dev.featurestore;

import java.time.Duration;
import java.util.List;

/**
 * What one scan planned, from Iceberg's scan report.
 *
 * @param table the table scanned
 * @param snapshotId the snapshot scanned
 * @param filter the row filter, as Iceberg prints it ({@code true} when there is none)
 * @param projectedColumns the columns read
 * @param planningDuration time spent planning
 * @param resultDataFiles data files the scan reads, after pruning
 * @param resultDeleteFiles delete files the scan applies
 * @param skippedDataFiles data files pruned by partition values and column statistics
 * @param scannedDataManifests data manifests read
 * @param skippedDataManifests data manifests pruned without reading them
 * @param resultBytes bytes of the data files the scan reads
 */
public record ScanMetrics(
    TableId table,
    long snapshotId,
    String filter,
    List<String> projectedColumns,
    Duration planningDuration,
    long resultDataFiles,
    long resultDeleteFiles,
    long skippedDataFiles,
    long scannedDataManifests,
    long skippedDataManifests,
    long resultBytes) {
  public ScanMetrics {
    projectedColumns = List.copyOf(projectedColumns);
  }
}
