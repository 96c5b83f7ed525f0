package dev.featurestore.core.storage.s3;

import dev.featurestore.core.storage.ForwardingInputFile;
import dev.featurestore.core.storage.ForwardingSeekableInputStream;
import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * An object's input file whose streams close themselves when a read fails. The S3 stream has
 * already retried by then, so a failed stream is of no further use; and some readers abandon it
 * without closing it (Iceberg's Avro reader when a manifest's header read fails, its Parquet
 * reader when a dictionary or bloom filter read fails while opening a file), which left S3
 * streams open until the garbage collector found them ("Unclosed input stream").
 */
final class ReleasingInputFile extends ForwardingInputFile {
  ReleasingInputFile(InputFile file) {
    super(file);
  }

  @Override
  public SeekableInputStream newStream() {
    return new ReleasingStream(super.newStream());
  }

  /** Forwards to the S3 stream (the shared forwarding base); closes it when a call fails. */
  static final class ReleasingStream extends ForwardingSeekableInputStream {
    private boolean closed;

    ReleasingStream(SeekableInputStream in) {
      super(in);
    }

    /** One forwarded call that may fail. */
    private interface Call<T> {
      T run() throws IOException;
    }

    private <T> T releasingOnFailure(Call<T> call) throws IOException {
      try {
        return call.run();
      } catch (IOException e) {
        throw released(e);
      } catch (RuntimeException e) {
        throw released(e);
      }
    }

    @Override
    public void seek(long newPos) throws IOException {
      releasingOnFailure(() -> {
        super.seek(newPos);
        return null;
      });
    }

    @Override
    public int read() throws IOException {
      return releasingOnFailure(super::read);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return releasingOnFailure(() -> super.read(b, off, len));
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      releasingOnFailure(() -> {
        super.readFully(position, buffer, offset, length);
        return null;
      });
    }

    @Override
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
      return releasingOnFailure(() -> super.readTail(buffer, offset, length));
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
        super.close();
      }
    }
  }
}
