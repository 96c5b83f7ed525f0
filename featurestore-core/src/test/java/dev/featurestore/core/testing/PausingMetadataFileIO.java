package dev.featurestore.core.testing;

import dev.featurestore.core.storage.ForwardingFileIO;
import dev.featurestore.core.storage.ForwardingPositionOutputStream;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.util.Map;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * For child JVMs killed at a table's first metadata file: the local FileIO, which, when the first
 * {@code *.metadata.json} is written, prints {@code PAUSED <location>} and waits to be killed.
 * With {@code empty} it pauses with the file just created (0 bytes); otherwise after the file was
 * written and closed, just before the catalog row would be inserted.
 */
public final class PausingMetadataFileIO extends ForwardingFileIO {
  private final boolean empty;

  public PausingMetadataFileIO(boolean empty) {
    super(new LocalFileIO(), Ownership.OWNED);
    this.empty = empty;
    initialize(Map.of());
  }

  private static void pause(String location) {
    System.out.println("PAUSED " + location);
    System.out.flush();
    try {
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile file = super.newOutputFile(path);
    return path.endsWith(".metadata.json") ? new PausingFile(file, empty) : file;
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
      return new ForwardingPositionOutputStream(out) {
        @Override
        public void close() throws IOException {
          super.close();
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
