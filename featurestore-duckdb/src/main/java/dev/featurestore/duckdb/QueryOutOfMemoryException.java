package dev.featurestore.duckdb;

import dev.featurestore.FeatureStoreException;

/**
 * DuckDB ran out of memory under the engine's memory limit ({@link DuckQueries.Builder#memoryLimit}).
 * Nothing is left allocated; the engine stays usable. Raise the limit, or make the query need less
 * (fewer columns, a filter, a smaller aggregate state).
 */
public class QueryOutOfMemoryException extends FeatureStoreException {
  public QueryOutOfMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
