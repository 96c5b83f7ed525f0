package dev.featurestore.core.ingest;

import dev.featurestore.Ingest;
import dev.featurestore.IngestListener;
import dev.featurestore.IngestResult;
import dev.featurestore.core.TableHandle;
import java.nio.file.Path;
import java.util.Map;

/** STUB: to be implemented. */
public final class IngestOperation implements Ingest {
  private final TableHandle handle;

  public IngestOperation(TableHandle handle) {
    this.handle = handle;
  }

  @Override public Ingest rows(Iterable<? extends Map<String, ?>> rows) { throw new UnsupportedOperationException(); }
  @Override public Ingest objects(Iterable<?> objects) { throw new UnsupportedOperationException(); }
  @Override public Ingest synthetic(long rows, long seed) { throw new UnsupportedOperationException(); }
  @Override public Ingest csv(Path file) { throw new UnsupportedOperationException(); }
  @Override public Ingest json(Path file) { throw new UnsupportedOperationException(); }
  @Override public Ingest parquet(Path file) { throw new UnsupportedOperationException(); }
  @Override public Ingest autoEvolveSchema(boolean enabled) { throw new UnsupportedOperationException(); }
  @Override public Ingest onProgress(IngestListener listener, long everyRows) { throw new UnsupportedOperationException(); }
  @Override public Ingest snapshotProperty(String key, String value) { throw new UnsupportedOperationException(); }
  @Override public IngestResult dryRun() { throw new UnsupportedOperationException(); }
  @Override public IngestResult commit() { throw new UnsupportedOperationException(handle.id().toString()); }
}
