package dev.featurestore.core.catalog;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;

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
final class MetadataWriteRecorder implements FileIO, SupportsBulkOperations {
  private static final long serialVersionUID = 1L;
  private static final ThreadLocal<String> WRITTEN = new ThreadLocal<>();

  private final FileIO delegate;

  MetadataWriteRecorder(FileIO delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
  }

  /** The FileIO behind {@code io} if it is a recorder, else {@code io}. */
  static FileIO unwrap(FileIO io) {
    return io instanceof MetadataWriteRecorder recorder ? recorder.delegate : io;
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
    return delegate.newOutputFile(location);
  }

  @Override
  public InputFile newInputFile(String location) {
    return delegate.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return delegate.newInputFile(location, length);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  /** The store FileIO's bulk delete, or its single deletes one after another (metadata files: a few per commit). */
  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    if (delegate instanceof SupportsBulkOperations bulk) {
      bulk.deleteFiles(paths);
      return;
    }
    int failed = 0;
    for (String path : paths) {
      try {
        delegate.deleteFile(path);
      } catch (RuntimeException e) {
        failed++;
      }
    }
    if (failed > 0) {
      throw new BulkDeletionFailureException(failed);
    }
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
