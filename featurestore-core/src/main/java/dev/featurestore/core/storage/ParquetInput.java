package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * An Iceberg {@link org.apache.iceberg.io.InputFile} as a Parquet {@link InputFile}, so Parquet's
 * own reader can read a footer through any FileIO (local or S3) without Hadoop. (Iceberg has
 * this adapter too, package-private.)
 */
public final class ParquetInput implements InputFile {
  private final org.apache.iceberg.io.InputFile file;

  private ParquetInput(org.apache.iceberg.io.InputFile file) {
    this.file = file;
  }

  public static InputFile of(org.apache.iceberg.io.InputFile file) {
    return new ParquetInput(requireNonNull(file, "file is null"));
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    org.apache.iceberg.io.SeekableInputStream in = file.newStream();
    return new DelegatingSeekableInputStream(in) {
      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }
    };
  }

  @Override
  public String toString() {
    return file.location();
  }
}
