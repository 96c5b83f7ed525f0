package dev.featurestore;

/** The storage (local disk or object store) failed. The table is left at its previous snapshot. */
public class StorageException extends FeatureStoreException {
  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
