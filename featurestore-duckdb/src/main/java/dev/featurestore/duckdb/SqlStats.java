package dev.featurestore.duckdb;

import java.time.Duration;
import java.util.List;

/**
 * What a query planned and read.
 *
 * @param tables one entry per named relation, in the order given
 * @param rowsReturned rows read from the result so far
 * @param planningTime resolving versions and planning files (all tables)
 * @param fetchTime fetching remote files into the local cache
 * @param executionTime running the SQL and reading rows (so far)
 */
public record SqlStats(List<TableScanStats> tables, long rowsReturned, Duration planningTime, Duration fetchTime,
    Duration executionTime) {

  /** Bytes of the planned data and delete files of every table. */
  public long plannedBytes() {
    return tables.stream().mapToLong(TableScanStats::plannedBytes).sum();
  }

  /** Remote files served from the cache, over every table. */
  public long filesFromCache() {
    return tables.stream().mapToLong(TableScanStats::filesFromCache).sum();
  }

  /** Remote files fetched, over every table. */
  public long filesFetched() {
    return tables.stream().mapToLong(TableScanStats::filesFetched).sum();
  }
}
