package dev.featurestore.core.base;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FileWriter;

/**
 * Internal, shared by ingest's and CDC's file writers: closes the open data files of a write. On a
 * bucket each close uploads the file's last part (or the whole file) and waits for it, so a
 * partitioned write ending with one upload after another waited for their sum: there the files are
 * closed together, up to {@link #MAX_PARALLEL_CLOSES} at once. On local disk they close one after
 * another on the calling thread. Either way every file is closed before this returns or throws.
 */
public final class DataFileCloses {
  /** The most files closed at once on a bucket (each close uploads the file's last part). */
  static final int MAX_PARALLEL_CLOSES = 8;

  private DataFileCloses() {}

  /** Whether the files of {@code table} are closed together: on a bucket, not on local disk. */
  public static boolean inParallel(Table table) {
    return !CommitPhases.isLocal(table.location());
  }

  /**
   * Closes every writer and returns their data files, in the writers' order. A failing close fails
   * the call after the others are closed (its failure first, the others' suppressed).
   *
   * @param parallel close on up to {@link #MAX_PARALLEL_CLOSES} threads (see {@link #inParallel})
   * @param loader the context class loader the closes run under (see {@link HadoopDefaultsHidden})
   */
  public static List<DataFile> closeAll(List<? extends FileWriter<?, DataWriteResult>> writers, boolean parallel,
      ClassLoader loader) throws IOException {
    if (!parallel || writers.size() < 2) {
      ClassLoader outer = HadoopDefaultsHidden.enter(loader);
      try {
        IOException failure = null;
        for (FileWriter<?, DataWriteResult> writer : writers) {
          failure = closeOne(writer, failure);
        }
        return results(writers, failure);
      } finally {
        HadoopDefaultsHidden.exit(outer);
      }
    }
    ExecutorService closers = Executors.newFixedThreadPool(Math.min(writers.size(), MAX_PARALLEL_CLOSES), r -> {
      Thread t = new Thread(r, "featurestore-file-close");
      t.setDaemon(true);
      t.setContextClassLoader(loader);
      return t;
    });
    try {
      List<Future<IOException>> closing = new ArrayList<>();
      for (FileWriter<?, DataWriteResult> writer : writers) {
        closing.add(closers.submit(() -> closeOne(writer, null)));
      }
      IOException failure = null;
      for (Future<IOException> done : closing) {
        IOException e = getUninterruptibly(done);
        if (e != null) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      return results(writers, failure);
    } finally {
      closers.shutdown();
    }
  }

  /** Closes one writer; returns {@code failure} with this close's failure added. */
  private static IOException closeOne(FileWriter<?, DataWriteResult> writer, IOException failure) {
    try {
      writer.close();
      return failure;
    } catch (IOException | RuntimeException e) {
      IOException wrapped = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
      if (failure == null) {
        return wrapped;
      }
      failure.addSuppressed(wrapped);
      return failure;
    }
  }

  private static List<DataFile> results(List<? extends FileWriter<?, DataWriteResult>> writers, IOException failure)
      throws IOException {
    if (failure != null) {
      throw failure;
    }
    List<DataFile> dataFiles = new ArrayList<>();
    for (FileWriter<?, DataWriteResult> writer : writers) {
      dataFiles.addAll(writer.result().dataFiles());
    }
    return dataFiles;
  }

  private static IOException getUninterruptibly(Future<IOException> future) throws IOException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true; // the close runs on: wait for it, so no file is left half-written
        } catch (ExecutionException e) {
          throw new IOException(e.getCause().getMessage(), e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
