package dev.featurestore.cdc;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the sealed batches in sequence order and commits them, one at a time: on the background
 * thread (every flush interval, or when a batch is full) and on the caller's thread in
 * {@link CdcPipeline#flush()}.
 */
final class Flusher {
  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

  private final CdcSettings settings;
  private final EntryAcceptor acceptor;
  private final BatchCommitter committer;
  /** Null unless the pipeline keeps a change log only. */
  private final WriteAhead writeAhead;
  private final ReentrantLock lock = new ReentrantLock();
  private final Thread thread;

  Flusher(CdcSettings settings, EntryAcceptor acceptor, BatchCommitter committer, WriteAhead writeAhead) {
    this.settings = settings;
    this.acceptor = acceptor;
    this.committer = committer;
    this.writeAhead = writeAhead;
    this.thread = new Thread(this::run, "featurestore-cdc-flusher-" + settings.shard());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Commits every sealed batch; returns what this call committed. */
  FlushResult drain() {
    lock.lock();
    try {
      FlushResult total = FlushResult.empty();
      while (true) {
        List<Logged> batch = acceptor.nextBatch();
        if (batch == null) {
          return total;
        }
        FlushResult done;
        try {
          TableWriter.WrittenAhead ahead = writeAhead == null ? null : writeAhead.take(batch);
          if (writeAhead != null) {
            writeAhead.start(acceptor.batchAfter(batch), committer.committed(0));
          }
          acceptor.awaitLogged(batch);
          done = committer.commit(batch, ahead);
        } catch (RuntimeException | Error e) {
          if (writeAhead != null) {
            writeAhead.discard();
          }
          throw e;
        }
        total = total.plus(done);
        acceptor.committed(batch, done, committer.minCommitted());
        settings.hooks().at("wal.truncated");
      }
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    long interval = settings.flushInterval().toMillis();
    while (true) {
      try {
        if (!acceptor.awaitDueBatch(interval)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
      try {
        drain();
      } catch (RuntimeException | Error e) {
        // never let a failure end the thread: the batch stays pending and is tried again
        LOG.warn("CDC background flush of shard {} failed; retrying in {}: {}", settings.shard(), settings.flushInterval(),
            e.toString());
        BatchCommitter.sleep(Math.max(100, interval));
      }
    }
  }

  /** Stops the background thread (the acceptor is closed already) and drops any files written ahead. */
  void stop() {
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lock.lock();
    try {
      if (writeAhead != null) {
        writeAhead.shutdown();
      }
      acceptor.closeLog();
    } finally {
      lock.unlock();
    }
  }
}
