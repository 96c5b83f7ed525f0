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
    FlushLead lead = new FlushLead(interval);
    while (true) {
      try {
        if (!acceptor.awaitDueBatch(interval, lead.millis())) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
      try {
        long start = System.nanoTime();
        if (drain().entries() > 0) {
          lead.took((System.nanoTime() - start) / 1_000_000);
        }
      } catch (RuntimeException | Error e) {
        // never let a failure end the thread: the batch stays pending and is tried again
        LOG.warn("CDC background flush of shard {} failed; retrying in {}: {}", settings.shard(), settings.flushInterval(),
            e.toString());
        BatchCommitter.sleep(Math.max(100, interval));
      }
    }
  }

  /**
   * How long before an entry's flush interval is up its batch is sealed: the longest of the last
   * few flushes (seal to committed), at most half the interval; half the interval until a flush
   * was timed (the first commits of a JVM are the slowest). The interval bounds the wait for the
   * commit, so the commit has to start that much earlier (sealing at the interval made the oldest
   * entry of a timed batch wait the interval plus a commit: 1.2 s at 1 s here).
   */
  static final class FlushLead {
    private final long[] recent = new long[5];
    private final long cap;
    private int next;
    private boolean timed;

    FlushLead(long intervalMillis) {
      this.cap = intervalMillis / 2;
    }

    void took(long millis) {
      timed = true;
      recent[next] = millis;
      next = (next + 1) % recent.length;
    }

    long millis() {
      if (!timed) {
        return cap;
      }
      long max = 0;
      for (long r : recent) {
        max = Math.max(max, r);
      }
      return Math.min(cap, max);
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
