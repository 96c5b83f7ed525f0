package dev.featurestore;

/** A request is invalid in combination with the current state of a table, for example renaming a column onto an existing name or an unsupported type promotion. Nothing was changed. */
public class ValidationException extends FeatureStoreException {
  public ValidationException(String message) {
    super(message);
  }

  public ValidationException(String message, Throwable cause) {
    super(message, cause);
  }
}
