package dev.featurestore.core.maintenance;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs an action on each item of a list on the calling thread and the store's workers together.
 * The caller takes items too, so this never waits on a pool that is busy (or is the pool this
 * runs on); helpers that start after the items are taken do nothing. Returns only once no helper
 * runs the action any more, so what the action collects is complete.
 */
final class FanOut {
  private FanOut() {}

  /**
   * Applies {@code action} to every item. The first failure stops the handing out of further
   * items and is rethrown once the items already taken are done.
   */
  static <T> void forEach(List<T> items, ExecutorService workers, Consumer<? super T> action) {
    int n = items.size();
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger active = new AtomicInteger();
    Object done = new Object();
    Runnable drain = () -> {
      for (int i = next.getAndIncrement(); i < n && failure.get() == null; i = next.getAndIncrement()) {
        try {
          action.accept(items.get(i));
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }
    };
    int helpers = Math.min(n - 1, poolSize(workers));
    for (int h = 0; h < helpers; h++) {
      try {
        workers.execute(() -> {
          active.incrementAndGet();
          try {
            drain.run();
          } finally {
            if (active.decrementAndGet() == 0) {
              synchronized (done) {
                done.notifyAll();
              }
            }
          }
        });
      } catch (RejectedExecutionException e) {
        break; // a closing pool: the caller does the rest
      }
    }
    drain.run();
    boolean interrupted = false;
    synchronized (done) {
      while (active.get() > 0) {
        try {
          done.wait();
        } catch (InterruptedException e) {
          interrupted = true;
          failure.compareAndSet(null, e); // stop handing out items, still wait for those taken
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable t = failure.get();
    if (t instanceof RuntimeException e) {
      throw e;
    } else if (t instanceof Error e) {
      throw e;
    } else if (t != null) {
      throw new IllegalStateException("Interrupted", t);
    }
  }

  private static int poolSize(ExecutorService workers) {
    if (workers instanceof ThreadPoolExecutor pool) {
      return Math.max(1, pool.getMaximumPoolSize());
    }
    return Math.max(1, Runtime.getRuntime().availableProcessors());
  }
}
