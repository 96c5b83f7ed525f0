package dev.featurestore.duckdb;

/**
 * One in-process DuckDB for a {@link dev.featurestore.FeatureStore}: runs sandboxed SQL over
 * time-travel versions of the store's tables and builds point-in-time training sets. Open it
 * with {@link DuckQueries#open(dev.featurestore.FeatureStore)}.
 *
 * <pre>{@code
 * try (SqlEngine sql = DuckQueries.open(store);
 *      SqlResult result = sql.query("SELECT entity_id, avg(feature_a) AS a FROM ev GROUP BY 1")
 *          .table("ev", events.query().asOfSnapshot(snapshotId))
 *          .execute()) {
 *   result.forEach(row -> System.out.println(row.toMap()));
 *   System.out.println(result.stats());
 * }
 * }</pre>
 *
 * <p>Thread safety: an engine may be used from several threads; every query runs on its own
 * connection. {@link #close()} cancels running queries and releases the database; the store
 * stays open (it is the caller's).
 */
public interface SqlEngine extends AutoCloseable {
  /**
   * A query, to give tables and options before running it. The SQL must be a single {@code
   * SELECT} (with {@code WITH}, joins, {@code ASOF} joins, window functions ...) that reads only
   * the relations given with {@link SqlQuery#table}.
   */
  SqlQuery query(String sql);

  /** A point-in-time training set: labels joined as of their time to feature tables. */
  TrainingSet.Builder trainingSet();

  /**
   * The point-in-time training set of {@code definition} (the same definition runs on Spark with
   * {@code SparkFeatureStore.trainingSet}).
   *
   * @throws dev.featurestore.InvalidArgumentException if {@code definition} is null
   */
  TrainingSet trainingSet(dev.featurestore.TrainingSetDefinition definition);

  /** The state of the local cache of remote files. */
  CacheStats cacheStats();

  /** Cancels running queries and closes the database. Safe to call twice. */
  @Override
  void close();
}
