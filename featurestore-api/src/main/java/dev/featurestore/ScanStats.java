package dev.featurestore;

import java.time.Duration;

/**
 * What a scan planned and read.
 *
 * @param snapshotId the snapshot scanned (-1 if the table has none)
 * @param totalDataFiles data files in the snapshot
 * @param plannedDataFiles data files left after pruning, which the scan reads
 * @param plannedDeleteFiles delete files applied
 * @param prunedDataFiles data files skipped by partition and column-statistics pruning
 * @param plannedBytes bytes of the planned data files
 * @param rowsReturned rows the scan returned
 * @param planningTime time spent planning
 * @param executionTime time spent reading rows (so far)
 */
public record ScanStats(
    long snapshotId,
    long totalDataFiles,
    long plannedDataFiles,
    long plannedDeleteFiles,
    long prunedDataFiles,
    long plannedBytes,
    long rowsReturned,
    Duration planningTime,
    Duration executionTime) {}
