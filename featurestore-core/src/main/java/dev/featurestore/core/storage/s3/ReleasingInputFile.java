package dev.featurestore.core.storage.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * An object's input file whose streams close themselves when a read fails. The S3 stream has
 * already retried by then, so a failed stream is of no further use; and some readers abandon it
 * without closing it (Iceberg's Avro reader when a manifest's header read fails, its Parquet
 * reader when a dictionary or bloom filter read fails while opening a file), which left S3
 * streams open until the garbage collector found them ("Unclosed input stream").
 */
final class ReleasingInputFile implements InputFile {
  private final InputFile file;

  ReleasingInputFile(InputFile file) {
    this.file = file;
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    return new ReleasingStream(file.newStream());
  }

  @Override
  public String location() {
    return file.location();
  }

  @Override
  public boolean exists() {
    return file.exists();
  }

  @Override
  public String toString() {
    return file.toString();
  }

  /** Forwards to the S3 stream; closes it when a call fails. */
  static final class ReleasingStream extends SeekableInputStream implements RangeReadable {
    private final SeekableInputStream in;
    private boolean closed;

    ReleasingStream(SeekableInputStream in) {
      this.in = in;
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      try {
        in.seek(newPos);
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public int read() throws IOException {
      try {
        return in.read();
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return in.read(b, off, len);
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      try {
        ranged().readFully(position, buffer, offset, length);
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
      try {
        return ranged().readTail(buffer, offset, length);
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public void readVectored(List<FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
      try {
        ranged().readVectored(ranges, allocate);
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    private RangeReadable ranged() throws IOException {
      if (in instanceof RangeReadable ranged) {
        return ranged;
      }
      throw new IOException("Cannot read a range: the stream does not support it: " + in.getClass().getName());
    }

    /** Closes the S3 stream after a failed call and returns the failure, with a close failure suppressed. */
    private <E extends Exception> E released(E failure) {
      try {
        close();
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
      }
      return failure;
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        in.close();
      }
    }
  }
}
