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

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
