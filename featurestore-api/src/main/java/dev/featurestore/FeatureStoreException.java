package dev.featurestore;

/**
 * Root of every exception the library throws on purpose. Unchecked; each subclass names what
 * the caller should do: fix the input ({@link ValidationException}, {@link InvalidDataException}),
 * look elsewhere ({@link NotFoundException}), pick another name ({@link AlreadyExistsException}),
 * retry ({@link CommitConflictException}), check before retrying ({@link CommitStateUnknownException})
 * or fix the storage ({@link StorageException}).
 *
 * <p>Messages follow one shape, {@code Cannot <verb> <object>: <reason>: <value>}, and never contain
 * credentials.
 */
public class FeatureStoreException extends RuntimeException {
  public FeatureStoreException(String message) {
    super(message);
  }

  public FeatureStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
