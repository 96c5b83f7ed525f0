package dev.featurestore.duckdb;

import dev.featurestore.FeatureStoreException;

/**
 * The SQL does something the sandbox does not allow: anything but a single SELECT, a table
 * function other than a few generators, a table that was not given to the query, or access to
 * files, extensions, attached databases or settings. Nothing was run.
 */
public class SqlRefusedException extends FeatureStoreException {
  public SqlRefusedException(String message) {
    super(message);
  }

  public SqlRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
