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
 *
 * <p>It takes bulk deletes ({@link #deleteFiles}): after a commit Iceberg deletes the metadata files
 * that fell off the metadata log ({@code write.metadata.delete-after-commit.enabled}) through the
 * operations' FileIO, and one without bulk deletes gets them deleted on Iceberg's worker pool while
 * the committing thread polls the futures with 10 ms sleeps: 10-13 ms added to every commit once a
 * table had {@code write.metadata.previous-versions-max} commits (CDC profile, 2026-12-06).
 */
final class MetadataWriteRecorder extends ForwardingFileIO {
  private static final long serialVersionUID = 1L;
  private static final ThreadLocal<String> WRITTEN = new ThreadLocal<>();

  MetadataWriteRecorder(FileIO delegate) {
    super(delegate, Ownership.BORROWED); // the store's FileIO: the catalog closing this leaves it open
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
