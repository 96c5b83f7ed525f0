package dev.featurestore.core;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.NotFoundException;
import dev.featurestore.StorageException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.storage.s3.ObjectStorageErrors;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.RuntimeIOException;

/**
 * Internal: converts Iceberg and I/O exceptions to the library's exception types at the
 * boundary, keeping the cause. Exceptions that are already ours, and JDK argument/state
 * exceptions, pass through unchanged.
 */
public final class Errors {
  private Errors() {}

  /**
   * Translates {@code e}; {@code what} describes the operation, as in "commit to table a.b".
   */
  public static RuntimeException translate(RuntimeException e, String what) {
    if (e instanceof FeatureStoreException
        || e instanceof IllegalArgumentException
        || e instanceof IllegalStateException
        || e instanceof NullPointerException
        || e instanceof UnsupportedOperationException) {
      if (e instanceof org.apache.iceberg.exceptions.ValidationException) {
        return new ValidationException("Cannot " + what + ": " + e.getMessage(), e);
      }
      return e;
    }
    if (e instanceof org.apache.iceberg.exceptions.CommitStateUnknownException) {
      return new CommitStateUnknownException(
          "Cannot " + what + ": commit outcome unknown, check the table before retrying: " + firstLine(e), e);
    }
    if (e instanceof CommitFailedException) {
      return new CommitConflictException("Cannot " + what + ": commit conflict after retries: " + e.getMessage(), e);
    }
    // After the commit outcomes above (never turn "unknown" into "failed"): object storage
    // failures (SDK exceptions, possibly wrapped by Iceberg) name their fix.
    Optional<StorageException> storage = ObjectStorageErrors.translate(e, what);
    if (storage.isPresent()) {
      return storage.get();
    }
    if (e instanceof org.apache.iceberg.exceptions.AlreadyExistsException) {
      return new AlreadyExistsException("Cannot " + what + ": " + e.getMessage(), e);
    }
    if (e instanceof NoSuchTableException || e instanceof NoSuchNamespaceException) {
      return new NotFoundException("Cannot " + what + ": " + e.getMessage(), e);
    }
    if (e instanceof org.apache.iceberg.exceptions.NotFoundException
        || e instanceof RuntimeIOException
        || e instanceof UncheckedIOException) {
      return new StorageException("Cannot " + what + ": storage failed: " + e.getMessage(), e);
    }
    return new FeatureStoreException("Cannot " + what + ": " + e, e);
  }

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
