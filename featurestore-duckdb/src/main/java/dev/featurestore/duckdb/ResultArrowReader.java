package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The reader DuckDB's {@code arrowExportStream} returns, wrapped so that closing is idempotent
 * (the result closes it too when the caller has not), batches are counted into the result's
 * statistics, and reading after the result closed fails cleanly instead of touching freed memory.
 */
final class ResultArrowReader extends ArrowReader {
  private final ArrowReader delegate;
  private final LongConsumer rowsRead;
  private final Runnable checkOpen;
  private boolean closed = false;

  ResultArrowReader(BufferAllocator allocator, ArrowReader delegate, LongConsumer rowsRead, Runnable checkOpen) {
    super(allocator);
    this.delegate = delegate;
    this.rowsRead = rowsRead;
    this.checkOpen = checkOpen;
  }

  @Override
  public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
    checkReadable();
    return delegate.getVectorSchemaRoot();
  }

  @Override
  public Map<Long, Dictionary> getDictionaryVectors() throws IOException {
    checkReadable();
    return delegate.getDictionaryVectors();
  }

  @Override
  public Dictionary lookup(long id) {
    return delegate.lookup(id);
  }

  @Override
  public Set<Long> getDictionaryIds() {
    return delegate.getDictionaryIds();
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    checkReadable();
    boolean loaded = delegate.loadNextBatch();
    if (loaded) {
      rowsRead.accept(delegate.getVectorSchemaRoot().getRowCount());
    }
    return loaded;
  }

  @Override
  public long bytesRead() {
    return delegate.bytesRead();
  }

  @Override
  protected Schema readSchema() throws IOException {
    return delegate.getVectorSchemaRoot().getSchema();
  }

  private void checkReadable() {
    if (closed) {
      throw new InvalidStateException("Cannot read Arrow batches: reader is closed");
    }
    checkOpen.run();
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public void close(boolean closeReadSource) throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    delegate.close(closeReadSource);
  }

  @Override
  protected void closeReadSource() throws IOException {
    // the delegate closes its own source in close(boolean)
  }
}
