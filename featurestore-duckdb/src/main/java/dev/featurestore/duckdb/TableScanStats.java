package dev.featurestore.duckdb;

import dev.featurestore.ScanStats;
import dev.featurestore.TableId;
import java.time.Duration;

/**
 * What the scan of one named relation planned and read.
 *
 * @param name the relation's name in the SQL
 * @param table the table
 * @param snapshotId the snapshot read (-1 for a table without snapshots)
 * @param totalDataFiles data files in the snapshot
 * @param plannedDataFiles data files left after pruning, which DuckDB reads
 * @param plannedDeleteFiles delete files applied (positional, equality, deletion vectors)
 * @param prunedByPartition data files skipped because their partition cannot match the filter
 * @param prunedByColumnStats data files skipped because their column statistics cannot match
 * @param plannedBytes bytes of the planned data and delete files
 * @param filesFromCache remote files served from the local cache
 * @param filesFetched remote files fetched into the cache for this query
 * @param bytesFetched bytes fetched for this query
 * @param planningTime time spent resolving the version and planning files
 * @param filesReadThroughIceberg data files DuckDB could not map by field id (a nested field
 *     renamed, added or dropped since they were written), read through Iceberg's reader instead
 */
public record TableScanStats(
    String name,
    TableId table,
    long snapshotId,
    long totalDataFiles,
    long plannedDataFiles,
    long plannedDeleteFiles,
    long prunedByPartition,
    long prunedByColumnStats,
    long plannedBytes,
    long filesFromCache,
    long filesFetched,
    long bytesFetched,
    Duration planningTime,
    long filesReadThroughIceberg) {

  /** Data files skipped by pruning, partition and column statistics together (as {@link ScanStats#prunedDataFiles()}). */
  public long prunedDataFiles() {
    return prunedByPartition + prunedByColumnStats;
  }

  /**
   * As the API's {@link ScanStats} (the same names and counts a core {@code TimeTravelQuery} reports
   * for the same version and filter), with the rows and execution time of the whole query. One
   * difference: {@code plannedBytes} here includes the delete files, which the SQL adapter fetches
   * and reads like data files.
   */
  public ScanStats toScanStats(long rowsReturned, Duration executionTime) {
    return new ScanStats(snapshotId, totalDataFiles, plannedDataFiles, plannedDeleteFiles,
        prunedDataFiles(), plannedBytes, rowsReturned, planningTime, executionTime);
  }
}
