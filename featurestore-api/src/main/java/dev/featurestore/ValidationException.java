package dev.featurestore;

/**
 * A request cannot be carried out as asked: fix the request. Either it is invalid in combination
 * with the current state of a table (renaming a column onto an existing name, an unsupported type
 * promotion), or an argument is invalid on its own ({@link InvalidArgumentException}), or input data
 * is ({@link InvalidDataException}). Nothing was changed.
 */
public class ValidationException extends FeatureStoreException {
  public ValidationException(String message) {
    super(message);
  }

  public ValidationException(String message, Throwable cause) {
    super(message, cause);
  }
}
