package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A position output stream that forwards writes, flushes and the close to another stream (on its
 * own, it makes a plain stream a position stream); a wrapper extends it and overrides only what it adds (for example {@link #close()}, to count the file it
 * finished). The position is the delegate's when the delegate is a {@link PositionOutputStream}
 * (its stored length too), else the number of bytes written through this stream. {@link #close()}
 * closes the delegate once: after it succeeded, later calls do nothing.
 *
 * <p>The one base for forwarding streams (with {@link ForwardingSeekableInputStream}); it lives
 * in storage, the bottom of core, so storage and every layer above can use it. Not thread-safe.
 */
public class ForwardingPositionOutputStream extends PositionOutputStream {
  private final OutputStream delegate;
  private long written;
  private boolean closed;

  public ForwardingPositionOutputStream(OutputStream delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
  }

  @Override
  public long getPos() throws IOException {
    return delegate instanceof PositionOutputStream ? ((PositionOutputStream) delegate).getPos() : written;
  }

  @Override
  public long storedLength() throws IOException {
    return delegate instanceof PositionOutputStream ? ((PositionOutputStream) delegate).storedLength() : written;
  }

  @Override
  public void write(int b) throws IOException {
    delegate.write(b);
    written++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    delegate.write(b, off, len);
    written += len;
  }

  @Override
  public void flush() throws IOException {
    delegate.flush();
  }

  /** True once {@link #close()} closed the delegate. */
  protected final boolean isClosed() {
    return closed;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      delegate.close();
      closed = true;
    }
  }
}
