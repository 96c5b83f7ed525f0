package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A FileIO that forwards every call to another; a wrapper extends it and overrides only what it
 * adds to (for example {@link #newOutputFile}, to remember the files it creates). The one base for
 * FileIO wrappers, as {@link ForwardingPositionOutputStream} is for streams: it lives in storage,
 * the bottom of core, so every layer above can use it.
 *
 * <p>It offers bulk and prefix operations, forwarded when the wrapped FileIO supports them (as
 * Iceberg's {@code ResolvingFileIO} does): {@link #deleteFiles} otherwise deletes one file at a
 * time through {@link #deleteFile(String)}; {@link #listPrefix} and {@link #deletePrefix}
 * otherwise throw {@link UnsupportedOperationException}. So {@code instanceof
 * SupportsPrefixOperations} is true of every wrapper: whether one can list is asked with {@link
 * PrefixOperations#of}, which asks the wrapped FileIO ({@link #supportsPrefixOperations}). The
 * calls do not route through each other (as with Guava's forwarding types): a wrapper that changes
 * how files are read overrides both {@code newInputFile} methods, one that changes deletion
 * overrides {@code deleteFile}, {@code deleteFiles} and {@code deletePrefix}. Iceberg's {@code
 * newInputFile} overloads for data, delete and manifest files keep their defaults, which open the
 * file by location and length through {@link #newInputFile(String, long)}.
 *
 * <p>Who closes the wrapped FileIO is said when the wrapper is made ({@link Ownership}): a wrapper
 * of a FileIO it was lent (the store's, a caller's: a per-operation wrapper, the catalog's view)
 * neither initializes nor closes it; one that owns its FileIO forwards {@link #initialize} and
 * {@link #close}. Thread-safe if the wrapped FileIO is.
 */
public abstract class ForwardingFileIO implements SupportsBulkOperations, SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  /** Whether a wrapper's {@link #initialize} and {@link #close} reach the FileIO it wraps. */
  public enum Ownership {
    /**
     * The wrapped FileIO is lent (the store's, a caller's) and stays its owner's: the wrapper
     * neither initializes nor closes it, so closing a per-operation wrapper cannot close the
     * store's FileIO.
     */
    BORROWED,
    /** The wrapper owns the FileIO it wraps (it made it, or was handed it to keep): it initializes and closes it. */
    OWNED
  }

  private final FileIO delegate;
  private final Ownership ownership;

  protected ForwardingFileIO(FileIO delegate, Ownership ownership) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.ownership = requireNonNull(ownership, "ownership is null");
  }

  /** The wrapped FileIO. */
  protected final FileIO delegate() {
    return delegate;
  }

  @Override
  public InputFile newInputFile(String location) {
    return delegate.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return delegate.newInputFile(location, length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return delegate.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    if (delegate instanceof SupportsBulkOperations bulk) {
      bulk.deleteFiles(locations);
      return;
    }
    int failed = 0;
    for (String location : locations) {
      try {
        deleteFile(location);
      } catch (RuntimeException e) {
        failed++;
      }
    }
    if (failed > 0) {
      throw new BulkDeletionFailureException(failed);
    }
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    return prefixOperations("list", prefix).listPrefix(prefix);
  }

  @Override
  public void deletePrefix(String prefix) {
    prefixOperations("delete", prefix).deletePrefix(prefix);
  }

  /**
   * Whether {@link #listPrefix} and {@link #deletePrefix} work: whether the wrapped FileIO supports
   * them ({@link PrefixOperations#of}). A wrapper that lists by itself overrides this.
   */
  public boolean supportsPrefixOperations() {
    return PrefixOperations.of(delegate).isPresent();
  }

  private SupportsPrefixOperations prefixOperations(String verb, String prefix) {
    return PrefixOperations.of(delegate).orElseThrow(() -> new UnsupportedOperationException("Cannot " + verb
        + " files by prefix: " + delegate.getClass().getName() + " does not support prefix operations: " + prefix));
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  /** Initializes the wrapped FileIO if this wrapper owns it; a borrowed one was initialized by its owner. */
  @Override
  public void initialize(Map<String, String> properties) {
    if (ownership == Ownership.OWNED) {
      delegate.initialize(properties);
    }
  }

  /** Closes the wrapped FileIO if this wrapper owns it; a borrowed one stays open for its owner. */
  @Override
  public void close() {
    if (ownership == Ownership.OWNED) {
      delegate.close();
    }
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
