package dev.featurestore.cdc;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.FileIO;

/** A FileIO whose next {@code n} data-file creations fail ({@code -1}: every one, until disarmed). */
final class FailingFileIO extends OutputInterceptingFileIO {
  final AtomicInteger failures = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();

  FailingFileIO(FileIO delegate) {
    super(delegate);
  }

  @Override
  void beforeOutputFile(String path) {
    if (path.contains("/data/") && (failures.get() < 0 || failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0)) {
      failed.incrementAndGet();
      throw new RuntimeIOException("injected: disk full: %s", fileName(path));
    }
  }
}
