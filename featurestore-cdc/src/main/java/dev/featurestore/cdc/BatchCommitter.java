package dev.featurestore.cdc;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one batch to every target table that does not hold it yet: retries with backoff,
 * resolves unknown commit outcomes by reading the table's mark (never a blind retry), and keeps
 * each table's high-water mark for this shard.
 */
final class BatchCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCommitter.class);

  private final CdcSettings settings;
  private final List<TableWriter> writers;
  private final PipelineMetrics metrics;
  /** Per target table: the highest sequence committed (the table's mark for this shard). */
  private final long[] committed;

  BatchCommitter(CdcSettings settings, List<TableWriter> writers, long[] marks, PipelineMetrics metrics) {
    this.settings = settings;
    this.writers = List.copyOf(writers);
    this.committed = marks.clone();
    this.metrics = metrics;
  }

  List<TableWriter> writers() {
    return writers;
  }

  /** The highest sequence committed to every table (Long.MAX_VALUE if there is no table). */
  synchronized long minCommitted() {
    long min = Long.MAX_VALUE;
    for (long c : committed) {
      min = Math.min(min, c);
    }
    return min;
  }

  synchronized long committed(int table) {
    return committed[table];
  }

  synchronized Map<String, Long> marks() {
    Map<String, Long> marks = new LinkedHashMap<>();
    for (int i = 0; i < writers.size(); i++) {
      marks.put(writers.get(i).name(), committed[i]);
    }
    return marks;
  }

  /**
   * Commits one batch to every table that does not have it yet, with retries. {@code writtenAhead}
   * (files of the batch written ahead for the first table, or null) serves the first attempt.
   */
  FlushResult commit(List<Logged> batch, TableWriter.WrittenAhead writtenAhead) {
    long first = batch.get(0).seq();
    long last = batch.get(batch.size() - 1).seq();
    // entries are accepted in sequence order under the acceptor's lock: the first is the oldest (as
    // the timed flush takes it); a loop over the 10k entries for it was 3% of the committing thread
    long oldest = batch.get(0).acceptedMillis;
    List<String> files = new ArrayList<>();
    long bytes = 0;
    long snapshotId = -1;
    TableWriter.WrittenAhead ahead = writtenAhead;
    for (int t = 0; t < writers.size(); t++) {
      long mark = committed(t);
      if (mark >= last) {
        if (ahead != null) {
          ahead.discard();
          ahead = null;
        }
        continue;
      }
      TableWriter writer = writers.get(t);
      List<Logged> todo = batch;
      if (mark >= first) { // part of the batch is in the table already (a retry after an unknown outcome)
        todo = new ArrayList<>(batch.size());
        for (Logged l : batch) {
          if (l.seq() > mark) {
            todo.add(l);
          }
        }
      }
      TableWriter.Committed done;
      try {
        done = commitWithRetries(writer, todo, first, last, ahead);
      } catch (Rejected r) {
        if (!writer.isolatesFailingEntries()) {
          throw r.failure;
        }
        done = isolate(t, writer, todo, r.failure);
      }
      ahead = null;
      synchronized (this) {
        committed[t] = last;
      }
      if (done != null) {
        files.addAll(done.files());
        bytes += done.bytes();
        snapshotId = done.snapshotId();
        metrics.deadLettered(done.deadLetters());
      }
    }
    metrics.batchCommitted(batch.size(), oldest);
    return new FlushResult(batch.size(), files.size(), bytes,
        snapshotId < 0 ? OptionalLong.empty() : OptionalLong.of(snapshotId), OptionalLong.of(first), OptionalLong.of(last),
        files);
  }

  /**
   * A batch the writer cannot take for a reason of its own (a non-retryable failure or an
   * {@code Error}), not of the store: the entries at fault may be isolated.
   */
  private static final class Rejected extends RuntimeException {
    final RuntimeException failure;

    Rejected(RuntimeException failure) {
      super(failure.getMessage(), failure, false, false);
      this.failure = failure;
    }
  }

  /**
   * Splits a batch the writer rejects into halves until the entries at fault are alone: each is
   * dead-lettered and the table's mark moved past it (an empty commit), so it is never replayed;
   * the other entries are committed. Returns what the commits did, with the dead letters.
   */
  private TableWriter.Committed isolate(int t, TableWriter writer, List<Logged> todo, RuntimeException failure) {
    long last = todo.get(todo.size() - 1).seq();
    if (todo.size() == 1) {
      Logged l = todo.get(0);
      String reason = "Cannot apply CDC entry to current state: writing it failed: " + failure.getMessage();
      LOG.warn("CDC shard {}: entry {} ({}/{}) cannot be written to {}; dead-lettered: {}", settings.shard(), l.seq(),
          l.entry.collection(), l.entry.docId(), writer.name(), failure.getMessage());
      TableWriter.Committed marked = commitOrThrow(writer, List.of(), l.seq());
      synchronized (this) {
        committed[t] = l.seq();
      }
      return merge(marked, new TableWriter.Committed(List.of(), 0, -1, List.of(new DeadLetter(l.withImages(), reason))));
    }
    int half = todo.size() / 2;
    TableWriter.Committed total = new TableWriter.Committed(List.of(), 0, -1, List.of());
    for (List<Logged> part : List.of(todo.subList(0, half), todo.subList(half, todo.size()))) {
      long partLast = part.get(part.size() - 1).seq();
      TableWriter.Committed done;
      try {
        done = commitWithRetries(writer, part, part.get(0).seq(), partLast, null);
      } catch (Rejected r) {
        done = isolate(t, writer, part, r.failure);
      }
      synchronized (this) {
        committed[t] = partLast;
      }
      total = merge(total, done);
    }
    LOG.debug("CDC shard {}: isolated the failing entries of sequences ..{} in {}", settings.shard(), last, writer.name());
    return total;
  }

  private TableWriter.Committed commitOrThrow(TableWriter writer, List<Logged> todo, long last) {
    try {
      return commitWithRetries(writer, todo, last, last, null);
    } catch (Rejected r) {
      throw r.failure;
    }
  }

  private static TableWriter.Committed merge(TableWriter.Committed a, TableWriter.Committed b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    List<DeadLetter> dead = new ArrayList<>(a.deadLetters());
    dead.addAll(b.deadLetters());
    List<String> files = new ArrayList<>(a.files());
    files.addAll(b.files());
    return new TableWriter.Committed(files, a.bytes() + b.bytes(),
        b.snapshotId() >= 0 ? b.snapshotId() : a.snapshotId(), dead);
  }

  /** Returns null when the table turned out to hold the batch already (an unknown outcome that landed). */
  private TableWriter.Committed commitWithRetries(TableWriter writer, List<Logged> todo, long first, long last,
      TableWriter.WrittenAhead writtenAhead) {
    RuntimeException failure = null;
    boolean rejected = false;
    int attempt = 0;
    TableWriter.WrittenAhead prepared = writtenAhead;
    if (prepared != null && !prepared.entries().equals(todo)) {
      prepared.discard();
      prepared = null;
    }
    while (++attempt <= settings.commitRetries()) {
      long start = System.nanoTime();
      try {
        TableWriter.Committed done;
        if (prepared != null) {
          // the files written ahead serve the first attempt; a retry writes them anew
          TableWriter.WrittenAhead files = prepared;
          prepared = null;
          done = files.commit(last);
        } else {
          done = writer.write(todo, last, System.currentTimeMillis());
        }
        metrics.commitTook(start);
        return done;
      } catch (VirtualMachineError e) {
        if (!(e instanceof OutOfMemoryError) && !(e instanceof StackOverflowError)) {
          throw e;
        }
        failure = new FeatureStoreException("Cannot commit CDC batch to table " + writer.name() + ": " + e, e);
        attempt++;
        break;
      } catch (RuntimeException e) {
        if (isUnknownOutcome(e)) {
          // never retry blindly: the table's mark says whether the commit landed
          OptionalLong mark = readMarkAfterUnknown(writer, e, first, last);
          if (mark.isPresent() && mark.getAsLong() >= last) {
            LOG.warn("CDC commit of sequences {}..{} to {} had an unknown outcome; the table holds it", first, last, writer.name());
            metrics.commitTook(start);
            return null;
          }
          LOG.warn("CDC commit of sequences {}..{} to {} had an unknown outcome; the table does not hold it, retrying",
              first, last, writer.name());
          failure = Errors.translate(e, "commit CDC batch to table " + writer.name());
        } else {
          failure = Errors.translate(e instanceof org.apache.iceberg.exceptions.ValidationException
              ? new org.apache.iceberg.exceptions.CommitFailedException(e, "%s", e.getMessage()) : e,
              "commit CDC batch to table " + writer.name());
          if (!retryable(failure)) {
            attempt++;
            if (!(failure instanceof CdcLeaseException)) {
              rejected = true;
            }
            break;
          }
        }
        LOG.warn("CDC commit attempt {}/{} of sequences {}..{} to {} failed: {}", attempt, settings.commitRetries(),
            first, last, writer.name(), failure.getMessage());
        if (attempt < settings.commitRetries()) {
          sleep(Math.min(2_000, settings.retryBackoff().toMillis() << Math.min(attempt - 1, 5)));
        }
      }
    }
    String message = "Cannot commit CDC batch (sequences " + first + ".." + last + ") to table " + writer.name()
        + " after " + (attempt - 1) + (attempt == 2 ? " attempt" : " attempts") + "; the entries stay in the write-ahead log: "
        + failure.getMessage();
    metrics.error(message);
    RuntimeException typed = typed(message, failure);
    if (rejected || failure.getCause() instanceof VirtualMachineError) {
      throw new Rejected(typed);
    }
    throw typed;
  }

  private static RuntimeException typed(String message, RuntimeException failure) {
    if (failure instanceof CommitConflictException) {
      return new CommitConflictException(message, failure);
    }
    if (failure instanceof StorageException) {
      return new StorageException(message, failure);
    }
    if (failure instanceof CommitStateUnknownException) {
      return new CommitStateUnknownException(message, failure);
    }
    if (failure instanceof CdcLeaseException) {
      return new CdcLeaseException(message, failure);
    }
    return new FeatureStoreException(message, failure);
  }

  private static boolean retryable(RuntimeException e) {
    return e instanceof CommitConflictException || e instanceof StorageException
        || e instanceof CommitStateUnknownException || e.getClass() == FeatureStoreException.class;
  }

  private static boolean isUnknownOutcome(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof org.apache.iceberg.exceptions.CommitStateUnknownException || c instanceof CommitStateUnknownException) {
        return true;
      }
    }
    return false;
  }

  private OptionalLong readMarkAfterUnknown(TableWriter writer, RuntimeException cause, long first, long last) {
    RuntimeException readFailure = null;
    for (int i = 0; i < 5; i++) {
      try {
        Table table = writer.table();
        table.refresh();
        return CdcTables.readMark(table, settings.shard());
      } catch (RuntimeException e) {
        readFailure = e;
        sleep(settings.retryBackoff().toMillis() * (i + 1));
      }
    }
    String message = "Cannot commit CDC batch (sequences " + first + ".." + last + ") to table " + writer.name()
        + ": the commit outcome is unknown and the table cannot be read to check it; the entries stay in the"
        + " write-ahead log and are reconciled by the next flush or restart: " + Errors.rootMessage(readFailure);
    metrics.error(message);
    throw new CommitStateUnknownException(message, cause);
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
