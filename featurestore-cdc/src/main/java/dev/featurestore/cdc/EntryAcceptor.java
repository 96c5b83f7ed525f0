package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The accepting side of a pipeline: sequences entries, appends them to the write-ahead log, cuts
 * them into batches and applies backpressure. Holds the batches waiting for their commit; the
 * flusher takes them in order and reports each one committed.
 */
final class EntryAcceptor {
  private final CdcSettings settings;
  private final WriteAheadLog wal;
  private final PipelineMetrics metrics;
  /** The highest sequence id committed to every target table. */
  private final LongSupplier committedMark;
  /** Whether batches are also sealed by age (a flush interval is set). */
  private final boolean timed;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition work = lock.newCondition();
  private List<Logged> current = new ArrayList<>();
  private final Deque<List<Logged>> sealed = new ArrayDeque<>();
  /** Results of the latest committed batches (by either thread), so flush() reports its entries. */
  private final Deque<FlushResult> history = new ArrayDeque<>();
  private long lastBatchSeq;
  private long pending;
  private long nextSeq;
  private boolean closed;

  EntryAcceptor(CdcSettings settings, WriteAheadLog wal, PipelineMetrics metrics, LongSupplier committedMark,
      List<Logged> replay, long nextSeq) {
    this.settings = settings;
    this.wal = wal;
    this.metrics = metrics;
    this.committedMark = committedMark;
    this.timed = settings.flushInterval().toMillis() > 0;
    for (int from = 0; from < replay.size(); from += settings.batchSize()) {
      sealed.add(new ArrayList<>(replay.subList(from, Math.min(replay.size(), from + settings.batchSize()))));
    }
    this.pending = replay.size();
    this.nextSeq = nextSeq;
  }

  /**
   * Appends one entry (checked already; its images as JSON) to the log and to the open batch;
   * returns its sequence id. {@code ownSeq} 0 assigns the next one. An entry bringing its own
   * sequence id at or below the committed high-water mark is a redelivery: it is skipped
   * (counted, not logged again) and its id is returned.
   */
  long accept(long ownSeq, CdcOperation op, String collection, String docId, String txn, String beforeJson,
      String afterJson) {
    lock.lock();
    try {
      checkOpen();
      long seq;
      if (ownSeq == 0) {
        seq = nextSeq;
      } else if (ownSeq < nextSeq) {
        long committed = committedMark.getAsLong();
        if (ownSeq <= committed) {
          metrics.redelivered.incrementAndGet();
          return ownSeq;
        }
        throw new InvalidArgumentException("Cannot accept CDC entry: sequence id not above the shard's last: "
            + ownSeq + " <= " + (nextSeq - 1));
      } else {
        seq = ownSeq;
      }
      while (pending >= settings.maxPending()) {
        if (settings.backpressure() == Backpressure.FAIL_FAST) {
          String lastError = metrics.lastError();
          throw new CdcBackpressureException("Cannot accept CDC entry: " + pending
              + " entries are pending, the bound is " + settings.maxPending() + ": commits are falling behind"
              + (lastError == null ? "" : ": " + lastError));
        }
        work.signalAll();
        settings.hooks().at("accept.blocked");
        notFull.awaitUninterruptibly();
        checkOpen();
        if (ownSeq == 0) {
          seq = nextSeq;
        } else {
          InvalidArgumentException.check(ownSeq >= nextSeq,
              "Cannot accept CDC entry: sequence id not above the shard's last: %d <= %d", ownSeq, nextSeq - 1);
        }
      }
      CdcEntry entry = new CdcEntry(seq, op, collection, docId, settings.shard(), Optional.empty(), Optional.empty(),
          Optional.ofNullable(txn));
      Logged logged = new Logged(entry, System.currentTimeMillis(), beforeJson, afterJson);
      wal.append(logged); // throws before anything changes if the log cannot be written
      nextSeq = seq + 1;
      current.add(logged);
      pending++;
      metrics.accepted.incrementAndGet();
      if (current.size() >= settings.batchSize()) {
        sealCurrent();
        work.signalAll();
      } else if (current.size() == 1 && timed) {
        // the first entry of an empty batch starts its interval: the flusher, asleep for a whole
        // interval while there was nothing to flush, has to count from this entry (a fixed timer
        // kept the first batch of a stream, and every entry after a quiet spell, waiting up to
        // one more interval)
        work.signalAll();
      }
      return seq;
    } finally {
      lock.unlock();
    }
  }

  /** Under lock: the open batch becomes a sealed one, and the log rolls to a new segment. */
  private void sealCurrent() {
    if (current.isEmpty()) {
      return;
    }
    wal.roll();
    sealed.add(current);
    current = new ArrayList<>();
  }

  void checkOpen() {
    if (closed) {
      throw new InvalidStateException("Cannot use CDC pipeline: it is closed: " + settings.shard());
    }
  }

  /** Seals the open batch for a flush; returns {last batch sequence reported, last accepted sequence}. */
  long[] sealForFlush() {
    lock.lock();
    try {
      checkOpen();
      sealCurrent();
      return new long[] {lastBatchSeq, nextSeq - 1};
    } finally {
      lock.unlock();
    }
  }

  /** What the batches in ({@code from}, {@code target}] committed, by either thread. */
  FlushResult committedBetween(long from, long target) {
    FlushResult total = FlushResult.empty();
    lock.lock();
    try {
      for (FlushResult r : history) {
        if (r.firstSequence().orElse(0) > from && r.lastSequence().orElse(Long.MAX_VALUE) <= target) {
          total = total.plus(r);
        }
      }
    } finally {
      lock.unlock();
    }
    return total;
  }

  /** The oldest batch waiting for its commit, or null. */
  List<Logged> nextBatch() {
    lock.lock();
    try {
      return sealed.peekFirst();
    } finally {
      lock.unlock();
    }
  }

  /** The sealed batch after {@code batch} if {@code batch} is the oldest, or null. */
  List<Logged> batchAfter(List<Logged> batch) {
    lock.lock();
    try {
      Iterator<List<Logged>> it = sealed.iterator();
      if (it.hasNext() && it.next() == batch && it.hasNext()) {
        return it.next();
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code batch} is on disk in the log as the fsync policy says (its segment is
   * forced in the background under EVERY_BATCH); called before the batch is committed.
   */
  void awaitLogged(List<Logged> batch) {
    wal.awaitSynced(batch.get(batch.size() - 1).seq());
  }

  /** The oldest batch is committed to every table: drop it and the log segments it covers. */
  void committed(List<Logged> batch, FlushResult done, long minCommitted) {
    List<Path> segments;
    lock.lock();
    try {
      history.addLast(done);
      if (history.size() > 10_000) {
        history.removeFirst();
      }
      lastBatchSeq = Math.max(lastBatchSeq, done.lastSequence().orElse(0));
      sealed.pollFirst();
      pending -= batch.size();
      segments = wal.detachThrough(minCommitted);
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
    if (!segments.isEmpty()) {
      wal.later(() -> WriteAheadLog.delete(segments)); // not on the committing thread, not under the lock
    }
  }

  /**
   * Waits until a batch is due: one is sealed, or the open one's oldest entry is within
   * {@code leadMillis} of waiting {@code intervalMillis} (then it is sealed, so its commit ends
   * about when the interval is up). Returns false once the pipeline is closed.
   */
  boolean awaitDueBatch(long intervalMillis, long leadMillis) throws InterruptedException {
    long due = intervalMillis - leadMillis;
    lock.lock();
    try {
      while (!closed && sealed.isEmpty() && !(intervalMillis > 0 && !current.isEmpty()
          && System.currentTimeMillis() - current.get(0).acceptedMillis >= due)) {
        long wait = intervalMillis > 0 && !current.isEmpty()
            ? Math.max(1, due - (System.currentTimeMillis() - current.get(0).acceptedMillis))
            : (intervalMillis > 0 ? intervalMillis : 1_000);
        work.await(wait, TimeUnit.MILLISECONDS);
      }
      if (closed) {
        return false;
      }
      if (sealed.isEmpty()) {
        sealCurrent();
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  long pending() {
    lock.lock();
    try {
      return pending;
    } finally {
      lock.unlock();
    }
  }

  long lastAccepted() {
    lock.lock();
    try {
      return nextSeq - 1;
    } finally {
      lock.unlock();
    }
  }

  int walSegments() {
    lock.lock();
    try {
      return wal.segmentCount();
    } finally {
      lock.unlock();
    }
  }

  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Refuses new entries from now on and wakes every waiting thread. */
  void markClosed() {
    lock.lock();
    try {
      closed = true;
      work.signalAll();
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void closeLog() {
    lock.lock();
    try {
      wal.close();
    } finally {
      lock.unlock();
    }
  }
}
