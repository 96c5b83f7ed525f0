package dev.featurestore.core.storage.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's S3FileIO (streams released on failure), deleting objects one request each instead of
 * with DeleteObjects. B2 rejects
 * DeleteObjects: the SDK always sends a checksum header with it (the operation requires one), and
 * B2 answers 400 "Unsupported header". Single DeleteObject needs no checksum. Deletes run on a
 * small pool owned by this FileIO, closed with it.
 *
 * <p>Public with a no-arg constructor because engines load it by class name ({@code io-impl}, see
 * {@link ObjectStorageIO#fileIOImpl}); not part of the library's compatibility promise.
 */
public final class SingleDeleteS3FileIO extends ReleasingS3FileIO {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SingleDeleteS3FileIO.class);
  static final int DELETE_THREADS = 8;

  private transient volatile ExecutorService deletePool;

  public SingleDeleteS3FileIO() {}

  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    ExecutorService pool = pool();
    List<Future<?>> pending = new ArrayList<>();
    AtomicInteger failures = new AtomicInteger();
    for (String path : paths) {
      pending.add(pool.submit(() -> {
        try {
          deleteFile(path);
        } catch (RuntimeException e) {
          failures.incrementAndGet();
          LOG.warn("Cannot delete object: {}: {}", path, e.toString());
        }
      }));
    }
    for (Future<?> future : pending) {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BulkDeletionFailureException(pending.size());
      } catch (ExecutionException e) {
        failures.incrementAndGet();
      }
    }
    if (failures.get() > 0) {
      throw new BulkDeletionFailureException(failures.get());
    }
  }

  private ExecutorService pool() {
    ExecutorService pool = deletePool;
    if (pool == null) {
      synchronized (this) {
        pool = deletePool;
        if (pool == null) {
          AtomicInteger count = new AtomicInteger();
          pool = Executors.newFixedThreadPool(DELETE_THREADS, r -> {
            Thread t = new Thread(r, "featurestore-s3-delete-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
          deletePool = pool;
        }
      }
    }
    return pool;
  }

  @Override
  public void close() {
    ExecutorService pool = deletePool;
    if (pool != null) {
      pool.shutdownNow();
    }
    super.close();
  }
}
