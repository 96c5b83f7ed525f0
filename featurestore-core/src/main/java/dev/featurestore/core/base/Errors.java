package dev.featurestore.core.base;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
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
 * boundary, keeping the cause. Exceptions that are already ours pass through unchanged, and so
 * does a {@code NullPointerException}: a user's null argument is refused at the entry point
 * ({@link InvalidArgumentException#requireNonNull}), so one from below is a bug, not hidden. JDK
 * argument and state exceptions from below become {@link InvalidArgumentException} and
 * {@link InvalidStateException}.
 */
public final class Errors {
  private Errors() {}

  /**
   * Translates {@code e}; {@code what} describes the operation, as in "commit to table a.b".
   */
  public static RuntimeException translate(RuntimeException e, String what) {
    if (e instanceof FeatureStoreException || e instanceof NullPointerException) {
      return e;
    }
    // Iceberg's ValidationException is a plain RuntimeException in 1.12: test it before anything else
    if (e instanceof org.apache.iceberg.exceptions.ValidationException) {
      return new ValidationException(cannot(what, e), e);
    }
    if (e instanceof IllegalArgumentException) {
      return new InvalidArgumentException(cannot(what, e), e);
    }
    if (e instanceof IllegalStateException || e instanceof UnsupportedOperationException) {
      return new InvalidStateException(cannot(what, e), e);
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
    if (catalogBusy(e)) {
      // SQLite answered busy/locked past the busy timeout: the catalog row was not updated
      return new CommitConflictException(
          "Cannot " + what + ": the catalog is locked by another writer: " + rootMessage(e), e);
    }
    return new FeatureStoreException("Cannot " + what + ": " + e, e);
  }

  /**
   * True when a JDBC catalog call failed because SQLite was busy or locked (result codes 5 and
   * 6) past the busy timeout. The statement did not run, so nothing was committed.
   */
  public static boolean catalogBusy(Throwable e) {
    if (e instanceof org.apache.iceberg.exceptions.CommitStateUnknownException) {
      return false;
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof java.sql.SQLException sql) {
        int code = sql.getErrorCode() & 0xff;
        String message = String.valueOf(sql.getMessage());
        return code == 5 || code == 6 || message.contains("SQLITE_BUSY") || message.contains("SQLITE_LOCKED");
      }
    }
    return false;
  }

  /** The message of the innermost cause. */
  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }

  /** "Cannot what: message", without a second "Cannot" when the message already has the shape. */
  private static String cannot(String what, RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    return message.startsWith("Cannot ") ? message : "Cannot " + what + ": " + message;
  }

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
