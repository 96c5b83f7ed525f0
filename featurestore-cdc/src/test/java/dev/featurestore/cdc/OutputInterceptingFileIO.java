package dev.featurestore.cdc;

import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/** A FileIO that forwards everything and lets a subclass act before each output file is created. */
abstract class OutputInterceptingFileIO implements FileIO {
  private final FileIO delegate;

  OutputInterceptingFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  /** Called before {@code newOutputFile(path)} is forwarded; may throw to fail the creation. */
  abstract void beforeOutputFile(String path);

  static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    beforeOutputFile(path);
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    delegate.deleteFile(path);
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
}
