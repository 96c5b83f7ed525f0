package dev.featurestore;

/** Receives progress of a long ingest. Called on the ingesting thread; keep it quick. */
@FunctionalInterface
public interface IngestListener {
  void onProgress(IngestProgress progress);
}
