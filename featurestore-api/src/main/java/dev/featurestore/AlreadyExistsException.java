package dev.featurestore;

/** An object with the requested name already exists: pick another name or load the existing one. */
public class AlreadyExistsException extends FeatureStoreException {
  public AlreadyExistsException(String message) {
    super(message);
  }

  public AlreadyExistsException(String message, Throwable cause) {
    super(message, cause);
  }
}
