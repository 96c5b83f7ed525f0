package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ScanStats;
import java.time.Duration;
import java.util.List;

/**
 * What a query planned and read. Per relation, {@link #tables()} says more than the API's {@link
 * ScanStats} (pruning by kind, the cache, fetches); {@link #scanStats(String)} gives a relation's
 * scan in the API's vocabulary. {@code rowsReturned}, {@code planningTime} and {@code
 * executionTime} mean what they mean in {@link ScanStats}, for the whole query.
 *
 * @param tables one entry per named relation, in the order given
 * @param rowsReturned rows read from the result so far
 * @param planningTime resolving versions and planning files (all tables)
 * @param fetchTime fetching remote files into the local cache
 * @param executionTime running the SQL and reading rows (so far)
 */
public record SqlStats(List<TableScanStats> tables, long rowsReturned, Duration planningTime, Duration fetchTime,
    Duration executionTime) {

  /**
   * The scan of the relation named {@code name}, in the API's {@link ScanStats} vocabulary (as a
   * core {@code QueryResult.scanStats()}); rows returned and execution time are the whole query's.
   *
   * @throws NotFoundException if no relation has that name (case-insensitive)
   */
  public ScanStats scanStats(String name) {
    InvalidArgumentException.requireNonNull(name, "find scan stats", "name");
    return tables.stream().filter(t -> t.name().equalsIgnoreCase(name)).findFirst()
        .map(t -> t.toScanStats(rowsReturned, executionTime))
        .orElseThrow(() -> new NotFoundException(
            "Cannot find scan stats: no relation of that name in the query: " + name));
  }

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
