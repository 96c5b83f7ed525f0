package dev.featurestore.cdc;

import org.apache.iceberg.io.FileIO;

/** A FileIO that reports named points to hooks when Iceberg creates commit metadata files
 * or deletion-vector (Puffin) files. */
final class PausingFileIO extends OutputInterceptingFileIO {
  private final Hooks hooks;

  PausingFileIO(FileIO delegate, Hooks hooks) {
    super(delegate);
    this.hooks = hooks;
  }

  @Override
  void beforeOutputFile(String path) {
    String name = fileName(path);
    if (name.endsWith(".metadata.json")) {
      hooks.at("io.metadata-json");
    } else if (name.startsWith("snap-")) {
      hooks.at("io.manifest-list");
    } else if (name.endsWith(".puffin")) {
      hooks.at("io.puffin"); // a deletion vector's file, about to be written
    }
  }
}
