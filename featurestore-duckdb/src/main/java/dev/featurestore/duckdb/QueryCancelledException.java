package dev.featurestore.duckdb;

import dev.featurestore.FeatureStoreException;

/** A query was cancelled, by {@link SqlResult#cancel()}, by its timeout or by closing the engine. */
public class QueryCancelledException extends FeatureStoreException {
  private final boolean timedOut;

  public QueryCancelledException(String message, boolean timedOut, Throwable cause) {
    super(message, cause);
    this.timedOut = timedOut;
  }

  /** True when the query's timeout cancelled it. */
  public boolean timedOut() {
    return timedOut;
  }
}
