package dev.featurestore;

/** A commit lost an optimistic race with another writer after all retries. Nothing was committed and the files written for it were removed; the operation may be retried. */
public class CommitConflictException extends FeatureStoreException {
  public CommitConflictException(String message) {
    super(message);
  }

  public CommitConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
