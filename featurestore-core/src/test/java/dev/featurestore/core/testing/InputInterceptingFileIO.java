package dev.featurestore.core.testing;

import dev.featurestore.core.storage.ForwardingFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * A FileIO that forwards everything and passes each input file it hands out (through either
 * {@code newInputFile} method) to {@link #intercept}, which may act on it, wrap it or fail.
 */
public abstract class InputInterceptingFileIO extends ForwardingFileIO {
  protected InputInterceptingFileIO(FileIO delegate, Ownership ownership) {
    super(delegate, ownership);
  }

  /** The input file to hand out for {@code file}: it, or a wrapper of it ({@code ForwardingInputFile}). */
  protected abstract InputFile intercept(InputFile file);

  @Override
  public final InputFile newInputFile(String location) {
    return intercept(super.newInputFile(location));
  }

  @Override
  public final InputFile newInputFile(String location, long length) {
    return intercept(super.newInputFile(location, length));
  }
}
