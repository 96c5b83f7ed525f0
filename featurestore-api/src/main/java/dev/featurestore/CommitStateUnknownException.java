package dev.featurestore;

/**
 * A commit was sent to the catalog but its outcome is unknown (for example the catalog
 * connection failed after the request was sent). The commit may or may not have landed.
 *
 * <p>Never retry blindly: read the table (for example its snapshot history) to find out whether
 * the change is there before trying again. Files written for the commit are kept, since the
 * commit may reference them.
 */
public class CommitStateUnknownException extends FeatureStoreException {
  public CommitStateUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
