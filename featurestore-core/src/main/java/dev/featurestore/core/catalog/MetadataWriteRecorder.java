package dev.featurestore.core.catalog;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The catalog's own {@link FileIO} as Iceberg's JDBC table operations see it: every call forwarded,
 * and the location of a table metadata file ({@code *.metadata.json}) a thread opens for writing
 * remembered for that thread, so that {@link HintingTableOperations} knows which file its commit
 * wrote (Iceberg's table operations do not say) and can install the committed metadata it already
 * has instead of reading that file back. Tables never see this wrapper: their operations hand out
 * the wrapped FileIO ({@link #unwrap}).
 */
final class MetadataWriteRecorder implements FileIO {
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
