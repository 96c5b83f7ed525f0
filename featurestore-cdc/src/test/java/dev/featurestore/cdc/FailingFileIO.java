package dev.featurestore.cdc;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/** A FileIO whose next {@code n} data-file creations fail ({@code -1}: every one, until disarmed). */
final class FailingFileIO implements FileIO {
  private final FileIO delegate;
  final AtomicInteger failures = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();

  FailingFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    if (path.contains("/data/") && (failures.get() < 0 || failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0)) {
      failed.incrementAndGet();
      throw new RuntimeIOException("injected: disk full: %s", path.substring(path.lastIndexOf('/') + 1));
    }
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
