package dev.featurestore.duckdb;

import dev.featurestore.ValidationException;

/** DuckDB could not parse, bind or run the SQL (a syntax error, an unknown column, a type error). Fix the SQL. */
public class InvalidSqlException extends ValidationException {
  public InvalidSqlException(String message, Throwable cause) {
    super(message, cause);
  }
}
