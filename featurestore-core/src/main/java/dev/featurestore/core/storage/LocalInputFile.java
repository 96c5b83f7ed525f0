package dev.featurestore.core.storage;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/** A local file read through a {@link FileChannel}, with positional range reads. */
final class LocalInputFile implements InputFile {
  private final String location;
  private final Path path;
  private long length;

  LocalInputFile(String location, Path path, long length) {
    this.location = location;
    this.path = path;
    this.length = length;
  }

  @Override
  public long getLength() {
    if (length < 0) {
      try {
        length = Files.size(path);
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "File does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot get length of file: " + location, e);
      }
    }
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    try {
      return new ChannelInputStream(FileChannel.open(path, StandardOpenOption.READ));
    } catch (NoSuchFileException e) {
      throw new NotFoundException(e, "File does not exist: %s", location);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open file: " + location, e);
    }
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public boolean exists() {
    return Files.exists(path);
  }

  @Override
  public String toString() {
    return location;
  }

  private static final class ChannelInputStream extends SeekableInputStream implements RangeReadable {
    private static final int BUFFER_SIZE = 64 * 1024;
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE);
    private long bufferStart = 0; // file position of buffer[0]
    private boolean closed = false;

    ChannelInputStream(FileChannel channel) {
      this.channel = channel;
      buffer.limit(0);
    }

    @Override
    public long getPos() {
      return bufferStart + buffer.position();
    }

    @Override
    public void seek(long newPos) throws IOException {
      checkOpen();
      if (newPos < 0) {
        throw new EOFException("Cannot seek to negative position: " + newPos);
      }
      if (newPos >= bufferStart && newPos <= bufferStart + buffer.limit()) {
        buffer.position((int) (newPos - bufferStart));
      } else {
        bufferStart = newPos;
        buffer.clear().limit(0);
      }
    }

    private boolean fill() throws IOException {
      bufferStart = getPos();
      buffer.clear();
      int n = channel.read(buffer, bufferStart);
      buffer.flip();
      return n > 0;
    }

    @Override
    public int read() throws IOException {
      checkOpen();
      if (!buffer.hasRemaining() && !fill()) {
        return -1;
      }
      return buffer.get() & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      checkOpen();
      if (len == 0) {
        return 0;
      }
      if (buffer.hasRemaining()) {
        int n = Math.min(len, buffer.remaining());
        buffer.get(b, off, n);
        return n;
      }
      if (len >= BUFFER_SIZE) {
        long pos = getPos();
        int n = channel.read(ByteBuffer.wrap(b, off, len), pos);
        if (n > 0) {
          bufferStart = pos + n;
          buffer.clear().limit(0);
        }
        return n;
      }
      if (!fill()) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      if (n <= 0) {
        return 0;
      }
      long target = Math.min(getPos() + n, channel.size());
      long skipped = target - getPos();
      seek(target);
      return skipped;
    }

    @Override
    public int available() throws IOException {
      checkOpen();
      return (int) Math.min(Integer.MAX_VALUE, channel.size() - getPos());
    }

    @Override
    public void readFully(long position, byte[] b, int off, int len) throws IOException {
      checkOpen();
      ByteBuffer target = ByteBuffer.wrap(b, off, len);
      long pos = position;
      while (target.hasRemaining()) {
        int n = channel.read(target, pos);
        if (n < 0) {
          throw new EOFException("Cannot read fully: reached end of file at " + pos);
        }
        pos += n;
      }
    }

    @Override
    public int readTail(byte[] b, int off, int len) throws IOException {
      long size = channel.size();
      int n = (int) Math.min(len, size);
      readFully(size - n, b, off, n);
      return n;
    }

    private void checkOpen() throws IOException {
      if (closed) {
        throw new IOException("Cannot read: stream is closed");
      }
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        channel.close();
      }
    }
  }
}
