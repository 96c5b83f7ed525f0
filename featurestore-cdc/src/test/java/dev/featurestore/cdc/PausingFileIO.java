package dev.featurestore.cdc;

import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/** A FileIO that reports named points to hooks when Iceberg creates commit metadata files. */
final class PausingFileIO implements FileIO {
  private final FileIO delegate;
  private final Hooks hooks;

  PausingFileIO(FileIO delegate, Hooks hooks) {
    this.delegate = delegate;
    this.hooks = hooks;
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (name.endsWith(".metadata.json")) {
      hooks.at("io.metadata-json");
    } else if (name.startsWith("snap-")) {
      hooks.at("io.manifest-list");
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
