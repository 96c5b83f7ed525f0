package dev.featurestore;

/** A table, snapshot, ref or column that was asked for does not exist. */
public class NotFoundException extends FeatureStoreException {
  public NotFoundException(String message) {
    super(message);
  }

  public NotFoundException(String message, Throwable cause) {
    super(message, cause);
  }
}
