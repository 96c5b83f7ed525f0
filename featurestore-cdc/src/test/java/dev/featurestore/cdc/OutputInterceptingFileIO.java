package dev.featurestore.cdc;

import dev.featurestore.core.storage.ForwardingFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;

/** A FileIO that forwards everything and lets a subclass act before each output file is created. */
abstract class OutputInterceptingFileIO extends ForwardingFileIO {
  OutputInterceptingFileIO(FileIO delegate) {
    super(delegate, Ownership.OWNED);
  }

  /** Called before {@code newOutputFile(path)} is forwarded; may throw to fail the creation. */
  abstract void beforeOutputFile(String path);

  static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    beforeOutputFile(path);
    return super.newOutputFile(path);
  }
}
