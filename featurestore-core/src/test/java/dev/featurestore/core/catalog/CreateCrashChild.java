package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStore;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The child JVM of {@link CreateCrashTest}: creates {@link SyntheticFeatures#TABLE_ID} in the
 * store at {@code args[0]} and, when the create's first {@code *.metadata.json} appears, prints
 * {@code PAUSED <location>} and waits to be killed. With {@code args[1]} {@code empty} it pauses
 * with the file just created (0 bytes); with {@code complete}, after the file was written and
 * closed, just before the catalog row would be inserted.
 */
public final class CreateCrashChild {
  private CreateCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    boolean empty = args[1].equals("empty");
    LocalFileIO local = new LocalFileIO();
    local.initialize(Map.of());
    try (FeatureStore store = FeatureStore.builder().root(root).fileIO(new PausingIO(local, empty)).build()) {
      System.out.println("STARTED");
      System.out.flush();
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      System.out.println("DONE"); // not reached
    }
  }

  static void pause(String location) {
    System.out.println("PAUSED " + location);
    System.out.flush();
    try {
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The local FileIO, pausing at the first metadata file written. */
  private static final class PausingIO implements SupportsPrefixOperations {
    private final LocalFileIO delegate;
    private final boolean empty;

    PausingIO(LocalFileIO delegate, boolean empty) {
      this.delegate = delegate;
      this.empty = empty;
    }

    @Override
    public OutputFile newOutputFile(String path) {
      OutputFile file = delegate.newOutputFile(path);
      return path.endsWith(".metadata.json") ? new PausingFile(file, empty) : file;
    }

    @Override
    public InputFile newInputFile(String path) {
      return delegate.newInputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      delegate.deleteFile(path);
    }

    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
      return delegate.listPrefix(prefix);
    }

    @Override
    public void deletePrefix(String prefix) {
      delegate.deletePrefix(prefix);
    }
  }

  private record PausingFile(OutputFile delegate, boolean empty) implements OutputFile {
    @Override
    public PositionOutputStream create() {
      return pausing(delegate.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return pausing(delegate.createOrOverwrite());
    }

    private PositionOutputStream pausing(PositionOutputStream out) {
      if (empty) {
        pause(delegate.location()); // the file exists, nothing written yet
      }
      return new PositionOutputStream() {
        @Override
        public long getPos() throws IOException {
          return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
          out.close();
          pause(delegate.location());
        }
      };
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public org.apache.iceberg.io.InputFile toInputFile() {
      return delegate.toInputFile();
    }
  }
}
