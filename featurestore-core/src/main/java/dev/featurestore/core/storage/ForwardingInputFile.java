package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * An input file that forwards every call to another; a wrapper extends it and overrides what it
 * adds to, usually {@link #newStream()} to wrap the stream (in a {@link
 * ForwardingSeekableInputStream}). The one base for input-file wrappers, beside {@link
 * ForwardingFileIO} and the stream bases. Thread-safe if the wrapped file is.
 *
 * <pre>{@code
 * InputFile counted = new ForwardingInputFile(file) {
 *   public SeekableInputStream newStream() {
 *     opened.incrementAndGet();
 *     return super.newStream();
 *   }
 * };
 * }</pre>
 */
public abstract class ForwardingInputFile implements InputFile {
  private final InputFile delegate;

  protected ForwardingInputFile(InputFile delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
  }

  /** The wrapped file. */
  protected final InputFile delegate() {
    return delegate;
  }

  @Override
  public long getLength() {
    return delegate.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    return delegate.newStream();
  }

  @Override
  public String location() {
    return delegate.location();
  }

  @Override
  public boolean exists() {
    return delegate.exists();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
