package dev.featurestore.core.testing;

import dev.featurestore.core.storage.LocalFileIO;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * Where scans were planned: the local FileIO, recording the name of the thread each manifest
 * ({@code *.avro} other than a manifest list) is opened on, until the first data file is written
 * ({@link #reset()} starts again). Planning reads manifests before an operation writes anything,
 * so the names recorded are those of the planning threads: the caller's when planned on the
 * calling thread, {@code iceberg-worker-pool-*} on Iceberg's pool.
 */
public final class PlanningThreadsFileIO extends InputInterceptingFileIO {
  private final List<String> threads = new ArrayList<>();
  private boolean writing;

  public PlanningThreadsFileIO() {
    super(new LocalFileIO(), Ownership.OWNED);
    initialize(Map.of());
  }

  /** Forgets what was recorded; records again until the next data file. */
  public synchronized void reset() {
    threads.clear();
    writing = false;
  }

  /** The distinct names of the threads manifests were opened on, in order of first use. */
  public synchronized List<String> threads() {
    return threads.stream().distinct().toList();
  }

  @Override
  protected synchronized InputFile intercept(InputFile file) {
    String name = file.location().substring(file.location().lastIndexOf('/') + 1);
    if (!writing && name.endsWith(".avro") && !name.startsWith("snap-")) {
      threads.add(Thread.currentThread().getName());
    }
    return file;
  }

  @Override
  public synchronized OutputFile newOutputFile(String location) {
    if (!location.contains("/metadata/")) {
      writing = true;
    }
    return super.newOutputFile(location);
  }
}
