package dev.featurestore.core.ingest;

import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.ForwardingPositionOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps the table's FileIO for one ingest's data writers: remembers every data file location
 * created (so a failed ingest can delete exactly its own files, finished or not) and counts the
 * files and bytes completed (for progress). Thread-safe.
 */
final class TrackingFileIO extends ForwardingFileIO {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(TrackingFileIO.class);

  private final List<String> created = new ArrayList<>();
  private final AtomicLong filesCompleted = new AtomicLong();
  private final AtomicLong bytesCompleted = new AtomicLong();

  TrackingFileIO(FileIO delegate) {
    super(delegate, Ownership.BORROWED);
  }

  synchronized List<String> createdLocations() {
    return List.copyOf(created);
  }

  /**
   * Deletes every data file this FileIO created, finished or not (after a failed or empty
   * ingest); a file that cannot be deleted is logged and left.
   */
  void deleteCreatedFiles(Object table) {
    for (String location : createdLocations()) {
      try {
        deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete data file of failed ingest into {}: {}", table, location, e);
      }
    }
  }

  /** Forgets the locations created so far (after {@link #deleteCreatedFiles} removed them). */
  synchronized void forgetCreatedFiles() {
    created.clear();
  }

  long filesCompleted() {
    return filesCompleted.get();
  }

  long bytesCompleted() {
    return bytesCompleted.get();
  }

  @Override
  public OutputFile newOutputFile(String path) {
    synchronized (this) {
      created.add(path);
    }
    OutputFile file = super.newOutputFile(path);
    return new OutputFile() {
      @Override
      public PositionOutputStream create() {
        return counted(file.create());
      }

      @Override
      public PositionOutputStream createOrOverwrite() {
        return counted(file.createOrOverwrite());
      }

      @Override
      public String location() {
        return file.location();
      }

      @Override
      public InputFile toInputFile() {
        return file.toInputFile();
      }
    };
  }

  private PositionOutputStream counted(PositionOutputStream out) {
    return new ForwardingPositionOutputStream(out) {
      @Override
      public void close() throws IOException {
        if (!isClosed()) {
          long length = getPos();
          super.close();
          filesCompleted.incrementAndGet();
          bytesCompleted.addAndGet(length);
        }
      }
    };
  }
}
