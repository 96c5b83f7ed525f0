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
 * otherwise throw {@link UnsupportedOperationException}. The calls do not route through each
 * other (as with Guava's forwarding types): a wrapper that changes how files are read overrides both
 * {@code newInputFile} methods, one that changes deletion overrides {@code deleteFile},
 * {@code deleteFiles} and {@code deletePrefix}. Iceberg's {@code newInputFile} overloads for
 * data, delete and manifest files keep their defaults, which open the file by location and
 * length through {@link #newInputFile(String, long)}.
 *
 * <p>{@link #initialize} and {@link #close} are forwarded too: closing a wrapper closes the
 * FileIO it wraps. Thread-safe if the wrapped FileIO is.
 */
public abstract class ForwardingFileIO implements SupportsBulkOperations, SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  private final FileIO delegate;

  protected ForwardingFileIO(FileIO delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
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

  private SupportsPrefixOperations prefixOperations(String verb, String prefix) {
    if (delegate instanceof SupportsPrefixOperations prefixes) {
      return prefixes;
    }
    throw new UnsupportedOperationException("Cannot " + verb + " files by prefix: "
        + delegate.getClass().getName() + " does not support prefix operations: " + prefix);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    delegate.initialize(properties);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
