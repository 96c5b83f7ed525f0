package dev.featurestore.core.catalog;

import dev.featurestore.core.storage.ForwardingFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;

/**
 * The catalog's own {@link FileIO} as Iceberg's JDBC table operations see it: every call forwarded,
 * and the location of a table metadata file ({@code *.metadata.json}) a thread opens for writing
 * remembered for that thread, so that {@link HintingTableOperations} knows which file its commit
 * wrote (Iceberg's table operations do not say) and can install the committed metadata it already
 * has instead of reading that file back. Tables never see this wrapper: their operations hand out
 * the wrapped FileIO ({@link #unwrap}).
 */
final class MetadataWriteRecorder extends ForwardingFileIO {
  private static final long serialVersionUID = 1L;
  private static final ThreadLocal<String> WRITTEN = new ThreadLocal<>();

  MetadataWriteRecorder(FileIO delegate) {
    super(delegate);
  }

  /** The FileIO behind {@code io} if it is a recorder, else {@code io}. */
  static FileIO unwrap(FileIO io) {
    return io instanceof MetadataWriteRecorder recorder ? recorder.delegate() : io;
  }

  /** Forgets what this thread wrote; call before a commit. */
  static void forget() {
    WRITTEN.remove();
  }

  /** The last metadata file this thread opened for writing since {@link #forget}, or null; forgets it. */
  static String takeWritten() {
    String location = WRITTEN.get();
    WRITTEN.remove();
    return location;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    if (location.endsWith(".metadata.json")) {
      WRITTEN.set(location);
    }
    return super.newOutputFile(location);
  }
}
