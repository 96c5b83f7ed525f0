package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A seekable input stream that forwards every call, range reads included, to another one; a
 * wrapper extends it and overrides only what it adds (for example {@link #close()}, to release what the stream
 * holds). The delegate must be {@link RangeReadable} too, as every stream of this library's
 * FileIOs is, so Parquet footers and column chunks keep being read with positional reads.
 * {@code readVectored} is left to {@link RangeReadable}'s default, which reads each range
 * through {@link #readFully(long, byte[], int, int)}.
 *
 * <p>The one base for forwarding streams (with {@link ForwardingPositionOutputStream}); it lives
 * in storage, the bottom of core, so storage and every layer above can use it.
 */
public class ForwardingSeekableInputStream extends SeekableInputStream implements RangeReadable {
  private final SeekableInputStream delegate;

  /** @throws IllegalArgumentException if {@code delegate} does not support range reads */
  public ForwardingSeekableInputStream(SeekableInputStream delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    if (!(delegate instanceof RangeReadable)) {
      throw new IllegalArgumentException("Cannot forward stream: no range reads: " + delegate.getClass().getName());
    }
  }

  @Override
  public long getPos() throws IOException {
    return delegate.getPos();
  }

  @Override
  public void seek(long newPos) throws IOException {
    delegate.seek(newPos);
  }

  @Override
  public int read() throws IOException {
    return delegate.read();
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    return delegate.read(b, off, len);
  }

  @Override
  public long skip(long n) throws IOException {
    return delegate.skip(n);
  }

  @Override
  public int available() throws IOException {
    return delegate.available();
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    ((RangeReadable) delegate).readFully(position, buffer, offset, length);
  }

  @Override
  public int readTail(byte[] buffer, int offset, int length) throws IOException {
    return ((RangeReadable) delegate).readTail(buffer, offset, length);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
