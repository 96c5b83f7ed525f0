package dev.featurestore.cdc;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.StorageException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.base.Errors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Iterator;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams document changes (insert, update, delete with before and after images) into Iceberg
 * tables, batched, durable and exactly once: a change log (every entry), a current-state table
 * (one row per document), or both.
 *
 * <pre>{@code
 * try (FeatureStore store = FeatureStore.openLocal(Path.of("store"));
 *      CdcPipeline cdc = CdcPipeline.builder(store)
 *          .changeLog(TableId.of("cdc", "events"))
 *          .currentState(TableId.of("cdc", "docs"))
 *          .shardId("orders-0")
 *          .writeAheadLog(Path.of("store/cdc-wal"))
 *          .batchSize(10_000)
 *          .flushInterval(Duration.ofSeconds(1))
 *          .build()) {
 *   long seq = cdc.insert("users", "42", Map.of("id", 42, "name", "Ann"));  // durable on return
 *   cdc.update("users", "42", Map.of("id", 42, "name", "Ann"), Map.of("id", 42, "name", "Anna"));
 *   cdc.delete("users", "42");
 *   FlushResult flushed = cdc.flush();   // committed and visible to every engine
 * }
 * }</pre>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>An entry is accepted when {@code createEntry} (or {@code insert/update/delete/append})
 *       returns its sequence id: it is then in the shard's write-ahead log (handed to the OS, and
 *       fsynced under {@link FsyncPolicy#EVERY_ENTRY}), and survives the death of the process.
 *   <li>Every commit stamps {@code featurestore.cdc.shard.<shard>.max-seq} in the snapshot
 *       summary. On open, the pipeline reads that high-water mark of each target table and replays
 *       from its log only the entries above it: nothing accepted is lost, nothing is committed
 *       twice.
 *   <li>A commit whose outcome is unknown is resolved by reading the table's mark, never by a
 *       blind retry.
 *   <li>Sequence ids increase by one per accepted entry in each shard, across restarts.
 * </ul>
 *
 * <h2>Thread safety</h2>
 * Entries may be created from several threads; they are sequenced in the order they enter the
 * log. One background thread commits; {@link #flush()} commits on the caller's thread; commits are
 * one at a time, in sequence order. A change-log-only pipeline also writes the next sealed batch's
 * data files on a second thread while the current batch commits. Several
 * pipelines (shards) may write one table, in one or several processes; one shard may be open in
 * one pipeline only (a lock file in the log directory).
 */
public final class CdcPipeline implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CdcPipeline.class);
  private static final Pattern SHARD = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

  private final Builder config;
  private final String shard;
  private final Hooks hooks;
  private final WriteAheadLog wal;
  private final List<TableWriter> writers;
  /** Per target table: the highest sequence committed (the table's mark for this shard). */
  private final long[] committed;

  private final ReentrantLock acceptLock = new ReentrantLock();
  private final Condition notFull = acceptLock.newCondition();
  private final Condition work = acceptLock.newCondition();
  private final ReentrantLock flushLock = new ReentrantLock();
  private List<Logged> current = new ArrayList<>();
  private final Deque<List<Logged>> sealed = new ArrayDeque<>();
  /** Results of the latest committed batches (by either thread), so flush() reports its entries. */
  private final Deque<FlushResult> history = new ArrayDeque<>();
  private long lastBatchSeq;
  private long pending;
  private long nextSeq;
  private boolean closed;
  private final Thread flusher;
  /**
   * Change-log-only pipelines write the next sealed batch's data files on this thread while the
   * flusher commits the current one (commits stay in sequence order); null otherwise.
   */
  private final ExecutorService preparer;
  /** The batch written ahead, if any; used by the thread holding flushLock. */
  private Prefetch prefetch;

  private record Prefetch(List<Logged> batch, Future<ChangeLogWriter.Prepared> files) {}

  private final AtomicLong accepted = new AtomicLong();
  private final long recovered;
  private final AtomicLong flushed = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private volatile Duration lastCommitLatency = Duration.ZERO;
  private volatile Duration maxCommitLatency = Duration.ZERO;
  private volatile Duration lastLag = Duration.ZERO;
  private volatile String lastError;
  private final List<DeadLetter> deadLetters = Collections.synchronizedList(new ArrayList<>());

  private CdcPipeline(Builder b) {
    this.config = b;
    this.shard = b.shardId;
    this.hooks = b.hooks;
    this.writers = new ArrayList<>();
    String codec = b.compression.codec();
    if (b.changeLog != null) {
      Table t = openTable(b.store, b.changeLog, CdcMode.CHANGE_LOG, b);
      ChangeLogWriter.checkSchema(t.schema(), b.changeLog.toString());
      writers.add(new ChangeLogWriter(t, b.changeLog.toString(), shard, codec, hooks));
    }
    if (b.currentState != null) {
      Table t = openTable(b.store, b.currentState, CdcMode.CURRENT_STATE, b);
      CurrentStateWriter.checkTable(t, b.currentState.toString());
      writers.add(new CurrentStateWriter(t, b.currentState.toString(), shard, codec, b.evolveSchema, hooks));
    }
    this.committed = new long[writers.size()];
    this.wal = new WriteAheadLog(b.walDirectory, shard, b.fsync, hooks);
    try {
      long minMark = Long.MAX_VALUE;
      long maxMark = 0;
      for (int i = 0; i < writers.size(); i++) {
        Table t = writers.get(i).table();
        committed[i] = CdcTables.readMark(t, shard).orElse(0);
        minMark = Math.min(minMark, committed[i]);
        maxMark = Math.max(maxMark, committed[i]);
      }
      List<Logged> logged = wal.recover();
      long maxLogged = logged.isEmpty() ? 0 : logged.get(logged.size() - 1).seq();
      wal.deleteThrough(minMark);
      List<Logged> replay = new ArrayList<>();
      for (Logged l : logged) {
        if (l.seq() > minMark) {
          replay.add(new Logged(l.entry.withSequence(l.seq(), shard), l.acceptedMillis, l.beforeJson, l.afterJson));
        }
      }
      for (int from = 0; from < replay.size(); from += b.batchSize) {
        sealed.add(new ArrayList<>(replay.subList(from, Math.min(replay.size(), from + b.batchSize))));
      }
      this.recovered = replay.size();
      this.pending = replay.size();
      this.nextSeq = Math.max(maxLogged, maxMark) + 1;
      if (!replay.isEmpty()) {
        LOG.info("CDC shard {}: replaying {} entries from the write-ahead log (sequences {}..{}; table marks {})",
            shard, replay.size(), replay.get(0).seq(), replay.get(replay.size() - 1).seq(), marks());
      }
      hooks.at("recovery.loaded");
      warmUp();
    } catch (RuntimeException e) {
      wal.close();
      throw e;
    }
    if (writers.size() == 1 && writers.get(0) instanceof ChangeLogWriter) {
      this.preparer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "featurestore-cdc-writer-" + shard);
        t.setDaemon(true);
        return t;
      });
    } else {
      this.preparer = null;
    }
    this.flusher = new Thread(this::runFlusher, "featurestore-cdc-flusher-" + shard);
    flusher.setDaemon(true);
    flusher.start();
  }

  private static Table openTable(FeatureStore store, TableId id, CdcMode mode, Builder b) {
    FeatureTable table = store.findTable(id).orElseGet(() -> {
      TableDefinition.Builder def = mode == CdcMode.CHANGE_LOG
          ? TableDefinition.builder(id, CdcTables.changeLogSchema())
          : TableDefinition.builder(id, CdcTables.currentStateSchema())
              .partitionSpec(CdcTables.currentStateSpec(CdcTables.currentStateSchema(), b.buckets));
      def.property(TableProperties.PARQUET_COMPRESSION, b.compression.codec());
      try {
        return store.createTable(def.build());
      } catch (dev.featurestore.TableAlreadyExistsException e) {
        return store.table(id); // another shard created it first
      }
    });
    return table.unwrap(Table.class);
  }

  /** A builder for a pipeline writing through {@code store}. */
  public static Builder builder(FeatureStore store) {
    return new Builder(store);
  }

  // ---- entries

  /**
   * Accepts one change: validates it, assigns the next sequence id of the shard, and appends it to
   * the write-ahead log before returning.
   *
   * @param operation {@code insert}, {@code update} or {@code delete} (see {@link CdcOperation#parse})
   * @param before the document before the change; null for inserts
   * @param after the document after the change; required for inserts and updates, null for deletes
   * @return the sequence id: the entry is durable (see {@link FsyncPolicy})
   * @throws IllegalArgumentException if the entry is invalid (messages in {@link CdcEntry})
   * @throws CdcBackpressureException under {@link Backpressure#FAIL_FAST} when the pending bound is reached
   * @throws StorageException if the write-ahead log cannot be written (the entry is not accepted)
   * @throws IllegalStateException if the pipeline is closed
   */
  public long createEntry(String operation, String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    return accept(CdcEntry.of(0, CdcOperation.parse(operation), collection, docId, shard, before, after, null));
  }

  /** {@link #createEntry(String, String, String, Map, Map)} with a typed operation. */
  public long createEntry(CdcOperation operation, String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    return accept(CdcEntry.of(0, operation, collection, docId, shard, before, after, null));
  }

  public long insert(String collection, String docId, Map<String, ?> after) {
    return createEntry(CdcOperation.INSERT, collection, docId, null, after);
  }

  public long update(String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    return createEntry(CdcOperation.UPDATE, collection, docId, before, after);
  }

  public long update(String collection, String docId, Map<String, ?> after) {
    return createEntry(CdcOperation.UPDATE, collection, docId, null, after);
  }

  public long delete(String collection, String docId, Map<String, ?> before) {
    return createEntry(CdcOperation.DELETE, collection, docId, before, null);
  }

  public long delete(String collection, String docId) {
    return createEntry(CdcOperation.DELETE, collection, docId, null, null);
  }

  /**
   * Accepts an entry built from its parts (see {@link CdcEntry#builder()}). A sequence id of 0 is
   * assigned; any other must be above every sequence id the shard has seen (for feeds that bring
   * their own, such as a database log position); a shard id must be empty or this pipeline's.
   *
   * @throws IllegalArgumentException {@code Cannot accept CDC entry: sequence id not above the
   *     shard's last: 5 <= 7}, or {@code Cannot accept CDC entry: wrong shard: s2, this pipeline
   *     writes s1}
   */
  public long append(CdcEntry entry) {
    requireNonNull(entry, "entry is null");
    if (!entry.shardId().isEmpty() && !entry.shardId().equals(shard)) {
      throw new IllegalArgumentException("Cannot accept CDC entry: wrong shard: " + entry.shardId()
          + ", this pipeline writes " + shard);
    }
    return accept(entry);
  }

  private long accept(CdcEntry entry) {
    String beforeJson = entry.before().map(Json::write).orElse(null);
    String afterJson = entry.after().map(Json::write).orElse(null);
    acceptLock.lock();
    try {
      checkOpen();
      while (pending >= config.maxPending) {
        if (config.backpressure == Backpressure.FAIL_FAST) {
          throw new CdcBackpressureException("Cannot accept CDC entry: " + pending
              + " entries are pending, the bound is " + config.maxPending + ": commits are falling behind"
              + (lastError == null ? "" : ": " + lastError));
        }
        work.signalAll();
        notFull.awaitUninterruptibly();
        checkOpen();
      }
      long seq;
      if (entry.sequenceId() == 0) {
        seq = nextSeq;
      } else if (entry.sequenceId() < nextSeq) {
        throw new IllegalArgumentException("Cannot accept CDC entry: sequence id not above the shard's last: "
            + entry.sequenceId() + " <= " + (nextSeq - 1));
      } else {
        seq = entry.sequenceId();
      }
      Logged logged = new Logged(entry.withSequence(seq, shard), System.currentTimeMillis(), beforeJson, afterJson);
      wal.append(logged); // throws before anything changes if the log cannot be written
      nextSeq = seq + 1;
      current.add(logged);
      pending++;
      accepted.incrementAndGet();
      if (current.size() >= config.batchSize) {
        sealCurrent();
        work.signalAll();
      }
      return seq;
    } finally {
      acceptLock.unlock();
    }
  }

  /** Under acceptLock: the open batch becomes a sealed one, and the log rolls to a new segment. */
  private void sealCurrent() {
    if (current.isEmpty()) {
      return;
    }
    wal.roll();
    sealed.add(current);
    current = new ArrayList<>();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Cannot use CDC pipeline: it is closed: " + shard);
    }
  }

  // ---- flushing

  /**
   * Commits every entry accepted before this call (and any recovered from the log), in batches,
   * to every target table.
   *
   * @return what this call committed (entries committed meanwhile by the background flusher are
   *     not counted)
   * @throws CommitConflictException, StorageException or another {@link FeatureStoreException}
   *     if a batch could not be committed after the configured retries: its entries stay in the
   *     write-ahead log and pending; a later flush (or a restart) commits them, once
   */
  public FlushResult flush() {
    long from;
    long target;
    acceptLock.lock();
    try {
      checkOpen();
      sealCurrent();
      from = lastBatchSeq;
      target = nextSeq - 1;
    } finally {
      acceptLock.unlock();
    }
    drain();
    // the batches may have been committed by the background flusher meanwhile: report them all
    FlushResult total = FlushResult.empty();
    acceptLock.lock();
    try {
      for (FlushResult r : history) {
        if (r.firstSequence().orElse(0) > from && r.lastSequence().orElse(Long.MAX_VALUE) <= target) {
          total = total.plus(r);
        }
      }
    } finally {
      acceptLock.unlock();
    }
    return total;
  }

  private FlushResult drain() {
    flushLock.lock();
    try {
      FlushResult total = FlushResult.empty();
      while (true) {
        List<Logged> batch;
        acceptLock.lock();
        try {
          batch = sealed.peekFirst();
        } finally {
          acceptLock.unlock();
        }
        if (batch == null) {
          return total;
        }
        FlushResult done;
        Future<ChangeLogWriter.Prepared> writtenAhead = takePrefetch(batch);
        try {
          prefetchAfter(batch);
          done = commitBatch(batch, writtenAhead);
        } catch (RuntimeException | Error e) {
          discardPrefetch();
          throw e;
        }
        total = total.plus(done);
        acceptLock.lock();
        try {
          history.addLast(done);
          if (history.size() > 10_000) {
            history.removeFirst();
          }
          lastBatchSeq = Math.max(lastBatchSeq, done.lastSequence().orElse(0));
          sealed.pollFirst();
          pending -= batch.size();
          wal.deleteThrough(minCommitted());
          notFull.signalAll();
        } finally {
          acceptLock.unlock();
        }
        hooks.at("wal.truncated");
      }
    } finally {
      flushLock.unlock();
    }
  }

  private long minCommitted() {
    long min = Long.MAX_VALUE;
    for (long c : committed) {
      min = Math.min(min, c);
    }
    return min;
  }

  /** Commits one batch to every table that does not have it yet, with retries. */
  private FlushResult commitBatch(List<Logged> batch, Future<ChangeLogWriter.Prepared> writtenAhead) {
    long first = batch.get(0).seq();
    long last = batch.get(batch.size() - 1).seq();
    long oldest = Long.MAX_VALUE;
    for (Logged l : batch) {
      oldest = Math.min(oldest, l.acceptedMillis);
    }
    int files = 0;
    long bytes = 0;
    long snapshotId = -1;
    for (int t = 0; t < writers.size(); t++) {
      if (committed[t] >= last) {
        drop(writtenAhead);
        continue;
      }
      TableWriter writer = writers.get(t);
      List<Logged> todo = new ArrayList<>(batch.size());
      for (Logged l : batch) {
        if (l.seq() > committed[t]) {
          todo.add(l);
        }
      }
      TableWriter.Committed done = commitWithRetries(writer, todo, first, last, writtenAhead);
      committed[t] = last;
      if (done != null) {
        files += done.files();
        bytes += done.bytes();
        snapshotId = done.snapshotId();
        deadLetters.addAll(done.deadLetters());
      }
    }
    long now = System.currentTimeMillis();
    lastLag = Duration.ofMillis(Math.max(0, now - oldest));
    flushed.addAndGet(batch.size());
    lastError = null;
    return new FlushResult(batch.size(), files, bytes,
        snapshotId < 0 ? OptionalLong.empty() : OptionalLong.of(snapshotId), OptionalLong.of(first), OptionalLong.of(last));
  }

  /** Returns null when the table turned out to hold the batch already (an unknown outcome that landed). */
  private TableWriter.Committed commitWithRetries(TableWriter writer, List<Logged> todo, long first, long last,
      Future<ChangeLogWriter.Prepared> writtenAhead) {
    RuntimeException failure = null;
    int attempt = 0;
    ChangeLogWriter.Prepared prepared = writtenAhead == null ? null : await(writtenAhead);
    if (prepared != null && !prepared.entries().equals(todo)) {
      ((ChangeLogWriter) writer).discard(prepared);
      prepared = null;
    }
    while (++attempt <= config.commitRetries) {
      long start = System.nanoTime();
      try {
        TableWriter.Committed done;
        if (prepared != null) {
          // the files written ahead serve the first attempt; a retry writes them anew
          ChangeLogWriter.Prepared files = prepared;
          prepared = null;
          done = ((ChangeLogWriter) writer).commit(files, last);
        } else {
          done = writer.write(todo, last, System.currentTimeMillis());
        }
        recordLatency(start);
        commits.incrementAndGet();
        return done;
      } catch (RuntimeException e) {
        if (isUnknownOutcome(e)) {
          // never retry blindly: the table's mark says whether the commit landed
          OptionalLong mark = readMarkAfterUnknown(writer, e, first, last);
          if (mark.isPresent() && mark.getAsLong() >= last) {
            LOG.warn("CDC commit of sequences {}..{} to {} had an unknown outcome; the table holds it", first, last, writer.name());
            recordLatency(start);
            commits.incrementAndGet();
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
            break;
          }
        }
        LOG.warn("CDC commit attempt {}/{} of sequences {}..{} to {} failed: {}", attempt, config.commitRetries,
            first, last, writer.name(), failure.getMessage());
        if (attempt < config.commitRetries) {
          sleep(Math.min(2_000, config.retryBackoff.toMillis() << Math.min(attempt - 1, 5)));
        }
      }
    }
    String message = "Cannot commit CDC batch (sequences " + first + ".." + last + ") to table " + writer.name()
        + " after " + (attempt - 1) + (attempt == 2 ? " attempt" : " attempts") + "; the entries stay in the write-ahead log: " + failure.getMessage();
    lastError = message;
    if (failure instanceof CommitConflictException) {
      throw new CommitConflictException(message, failure);
    }
    if (failure instanceof StorageException) {
      throw new StorageException(message, failure);
    }
    if (failure instanceof CommitStateUnknownException) {
      throw new CommitStateUnknownException(message, failure);
    }
    throw new FeatureStoreException(message, failure);
  }

  /**
   * Under flushLock, before {@code batch} is committed: starts writing the data files of the
   * sealed batch after it, through a read-only copy of the table taken on this thread.
   */
  private void prefetchAfter(List<Logged> batch) {
    if (preparer == null) {
      return;
    }
    List<Logged> next = null;
    acceptLock.lock();
    try {
      Iterator<List<Logged>> it = sealed.iterator();
      if (it.hasNext() && it.next() == batch && it.hasNext()) {
        next = it.next();
      }
    } finally {
      acceptLock.unlock();
    }
    if (next == null || committed[0] >= next.get(next.size() - 1).seq()) {
      return;
    }
    List<Logged> todo = new ArrayList<>(next.size());
    for (Logged l : next) {
      if (l.seq() > committed[0]) {
        todo.add(l);
      }
    }
    ChangeLogWriter writer = (ChangeLogWriter) writers.get(0);
    try {
      Table copy = SerializableTable.copyOf(writer.table());
      long commitMillis = System.currentTimeMillis();
      prefetch = new Prefetch(next, preparer.submit(() -> writer.prepare(copy, todo, commitMillis)));
    } catch (RuntimeException e) {
      // closing, or the table cannot be copied: the batch is written when its turn comes
      LOG.debug("CDC shard {}: cannot write the next batch ahead: {}", shard, e.toString());
    }
  }

  /** Under flushLock: the files written ahead for {@code batch}, if any; any other batch's are dropped. */
  private Future<ChangeLogWriter.Prepared> takePrefetch(List<Logged> batch) {
    if (prefetch != null && prefetch.batch() == batch) {
      Future<ChangeLogWriter.Prepared> files = prefetch.files();
      prefetch = null;
      return files;
    }
    discardPrefetch();
    return null;
  }

  private void drop(Future<ChangeLogWriter.Prepared> writtenAhead) {
    ChangeLogWriter.Prepared prepared = writtenAhead == null ? null : await(writtenAhead);
    if (prepared != null) {
      ((ChangeLogWriter) writers.get(0)).discard(prepared);
    }
  }

  /** Drops the batch written ahead (its files are deleted), after waiting for it. */
  private void discardPrefetch() {
    if (prefetch == null) {
      return;
    }
    Future<ChangeLogWriter.Prepared> files = prefetch.files();
    prefetch = null;
    drop(files);
  }

  /** The files written ahead, or null if that failed (the batch is then written when committed). */
  private ChangeLogWriter.Prepared await(Future<ChangeLogWriter.Prepared> files) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return files.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException | CancellationException e) {
          LOG.debug("CDC shard {}: writing a batch ahead failed; it is written again at its commit: {}", shard,
              e.getCause() == null ? e.toString() : e.getCause().toString());
          return null;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
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
        return CdcTables.readMark(table, shard);
      } catch (RuntimeException e) {
        readFailure = e;
        sleep(config.retryBackoff.toMillis() * (i + 1));
      }
    }
    String message = "Cannot commit CDC batch (sequences " + first + ".." + last + ") to table " + writer.name()
        + ": the commit outcome is unknown and the table cannot be read to check it; the entries stay in the"
        + " write-ahead log and are reconciled by the next flush or restart: " + Errors.rootMessage(readFailure);
    lastError = message;
    throw new CommitStateUnknownException(message, cause);
  }

  private void recordLatency(long startNanos) {
    Duration d = Duration.ofNanos(System.nanoTime() - startNanos);
    lastCommitLatency = d;
    if (d.compareTo(maxCommitLatency) > 0) {
      maxCommitLatency = d;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Runs the write path once in memory before the first entry is accepted, so the first batch
   * does not pay class loading and codec setup (in a cold JVM that made the first commit take
   * 1-2 s, the tail of the time-to-visible). Costs a few hundred ms in the first pipeline of a
   * JVM, little after; a failure here only costs that speed.
   */
  private void warmUp() {
    for (TableWriter writer : writers) {
      if (writer instanceof ChangeLogWriter changeLog) {
        try {
          changeLog.warmUp();
        } catch (RuntimeException | LinkageError e) {
          LOG.debug("CDC shard {}: warming up the write path failed: {}", shard, e.toString());
        }
      }
    }
  }

  private void runFlusher() {
    long interval = config.flushInterval.toMillis();
    while (true) {
      acceptLock.lock();
      try {
        while (!closed && sealed.isEmpty() && !(interval > 0 && !current.isEmpty()
            && System.currentTimeMillis() - current.get(0).acceptedMillis >= interval)) {
          long wait = interval > 0 && !current.isEmpty()
              ? Math.max(1, interval - (System.currentTimeMillis() - current.get(0).acceptedMillis))
              : (interval > 0 ? interval : 1_000);
          work.await(wait, TimeUnit.MILLISECONDS);
        }
        if (closed) {
          return;
        }
        if (sealed.isEmpty()) {
          sealCurrent();
        }
      } catch (InterruptedException e) {
        return;
      } finally {
        acceptLock.unlock();
      }
      try {
        drain();
      } catch (RuntimeException e) {
        LOG.warn("CDC background flush of shard {} failed; retrying in {}: {}", shard, config.flushInterval, e.getMessage());
        sleep(Math.max(100, interval));
      }
    }
  }

  // ---- state

  public String shardId() {
    return shard;
  }

  /** The modes this pipeline keeps. */
  public Set<CdcMode> modes() {
    EnumSet<CdcMode> modes = EnumSet.noneOf(CdcMode.class);
    if (config.changeLog != null) {
      modes.add(CdcMode.CHANGE_LOG);
    }
    if (config.currentState != null) {
      modes.add(CdcMode.CURRENT_STATE);
    }
    return modes;
  }

  /** The highest sequence id accepted (or recovered) in this shard; 0 if none ever was. */
  public long lastAcceptedSequence() {
    acceptLock.lock();
    try {
      return nextSeq - 1;
    } finally {
      acceptLock.unlock();
    }
  }

  /** Entries replayed from the write-ahead log when this pipeline opened. */
  public long recoveredEntries() {
    return recovered;
  }

  /** Entries the current-state table rejected since this pipeline opened, oldest first. */
  public List<DeadLetter> deadLetters() {
    synchronized (deadLetters) {
      return List.copyOf(deadLetters);
    }
  }

  /** The per-table high-water marks this pipeline knows (table name to highest committed sequence). */
  public Map<String, Long> marks() {
    Map<String, Long> marks = new LinkedHashMap<>();
    for (int i = 0; i < writers.size(); i++) {
      marks.put(writers.get(i).name(), committed[i]);
    }
    return marks;
  }

  public CdcMetrics metrics() {
    long pendingNow;
    acceptLock.lock();
    try {
      pendingNow = pending;
    } finally {
      acceptLock.unlock();
    }
    long min = minCommitted();
    return new CdcMetrics(accepted.get(), recovered, flushed.get(), pendingNow, commits.get(), lastCommitLatency,
        maxCommitLatency, min == 0 || min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min), lastLag,
        deadLetters.size(), Optional.ofNullable(lastError));
  }

  /** Write-ahead log segments on disk (for tests and tuning). */
  int walSegments() {
    acceptLock.lock();
    try {
      return wal.segmentCount();
    } finally {
      acceptLock.unlock();
    }
  }

  /**
   * Flushes what is pending, stops the background flusher and closes the log. If the final flush
   * fails, the pipeline still closes (the entries stay in the log for the next open) and the
   * failure is thrown. Safe to call twice.
   */
  @Override
  public void close() {
    acceptLock.lock();
    try {
      if (closed) {
        return;
      }
    } finally {
      acceptLock.unlock();
    }
    RuntimeException failure = null;
    try {
      flush();
    } catch (RuntimeException e) {
      failure = e;
    }
    acceptLock.lock();
    try {
      closed = true;
      work.signalAll();
      notFull.signalAll();
    } finally {
      acceptLock.unlock();
    }
    try {
      flusher.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    flushLock.lock();
    try {
      discardPrefetch();
      if (preparer != null) {
        preparer.shutdown();
      }
      acceptLock.lock();
      try {
        wal.close();
      } finally {
        acceptLock.unlock();
      }
    } finally {
      flushLock.unlock();
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "CdcPipeline{shard=" + shard + ", modes=" + modes() + "}";
  }

  /**
   * Settings, each checked where it is set; {@link #build()} checks the combination, opens (or
   * creates) the tables, recovers the write-ahead log and starts the background flusher.
   */
  public static final class Builder {
    private final FeatureStore store;
    private TableId changeLog;
    private TableId currentState;
    private String shardId = "0";
    private int batchSize = 10_000;
    private Duration flushInterval = Duration.ofSeconds(1);
    private CdcCompression compression = CdcCompression.ZSTD;
    private Path walDirectory;
    private FsyncPolicy fsync = FsyncPolicy.EVERY_BATCH;
    private int commitRetries = 5;
    private Duration retryBackoff = Duration.ofMillis(100);
    private Backpressure backpressure = Backpressure.BLOCK;
    private long maxPending = 100_000;
    private boolean evolveSchema = true;
    private int buckets = 16;
    private Hooks hooks = Hooks.NONE;

    private Builder(FeatureStore store) {
      this.store = requireNonNull(store, "store is null");
    }

    /** Keep a change log in this table (created if missing). */
    public Builder changeLog(TableId table) {
      this.changeLog = requireNonNull(table, "table is null");
      return this;
    }

    /** Keep the current state in this table (created if missing, bucketed by doc id). */
    public Builder currentState(TableId table) {
      this.currentState = requireNonNull(table, "table is null");
      return this;
    }

    /** Letters, digits, {@code _ . -}; default {@code 0}. Sequence ids and marks are per shard. */
    public Builder shardId(String shardId) {
      requireNonNull(shardId, "shardId is null");
      if (!SHARD.matcher(shardId).matches()) {
        throw new IllegalArgumentException("Cannot set CDC shard id: only letters, digits, _ . - allowed: " + shardId);
      }
      this.shardId = shardId;
      return this;
    }

    /** Entries per commit; default 10,000. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1) {
        throw new IllegalArgumentException("Cannot set CDC batch size: must be positive: " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /** Longest time an accepted entry waits for its commit; default 1 s; zero disables the timer. */
    public Builder flushInterval(Duration interval) {
      requireNonNull(interval, "interval is null");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("Cannot set CDC flush interval: negative: " + interval);
      }
      this.flushInterval = interval;
      return this;
    }

    public Builder compression(CdcCompression compression) {
      this.compression = requireNonNull(compression, "compression is null");
      return this;
    }

    /** The write-ahead log directory (required); each shard logs in its own subdirectory. */
    public Builder writeAheadLog(Path directory) {
      this.walDirectory = requireNonNull(directory, "directory is null");
      return this;
    }

    /** Default {@link FsyncPolicy#EVERY_BATCH}. */
    public Builder fsync(FsyncPolicy policy) {
      this.fsync = requireNonNull(policy, "policy is null");
      return this;
    }

    /** Attempts per batch and table before a flush fails (each on top of Iceberg's own retries); default 5. */
    public Builder commitRetries(int attempts) {
      if (attempts < 1) {
        throw new IllegalArgumentException("Cannot set CDC commit retries: must be at least 1: " + attempts);
      }
      this.commitRetries = attempts;
      return this;
    }

    /** First pause between attempts, doubled each time up to 2 s; default 100 ms. */
    public Builder retryBackoff(Duration backoff) {
      requireNonNull(backoff, "backoff is null");
      if (backoff.isNegative()) {
        throw new IllegalArgumentException("Cannot set CDC retry backoff: negative: " + backoff);
      }
      this.retryBackoff = backoff;
      return this;
    }

    /** What happens when {@code maxPending} entries wait for their commit; default BLOCK. */
    public Builder backpressure(Backpressure backpressure, long maxPending) {
      this.backpressure = requireNonNull(backpressure, "backpressure is null");
      if (maxPending < 1) {
        throw new IllegalArgumentException("Cannot set CDC pending bound: must be positive: " + maxPending);
      }
      this.maxPending = maxPending;
      return this;
    }

    /** Whether new document fields add columns and widenings promote them; default on. */
    public Builder schemaEvolution(boolean enabled) {
      this.evolveSchema = enabled;
      return this;
    }

    /** Buckets on doc id for a new current-state table (the unit of copy-on-write); default 16. */
    public Builder currentStateBuckets(int buckets) {
      if (buckets < 1) {
        throw new IllegalArgumentException("Cannot set CDC current-state buckets: must be positive: " + buckets);
      }
      this.buckets = buckets;
      return this;
    }

    Builder hooks(Hooks hooks) {
      this.hooks = requireNonNull(hooks, "hooks is null");
      return this;
    }

    /**
     * Opens the pipeline: creates missing tables, reads their high-water marks, replays the log.
     *
     * @throws IllegalArgumentException if no table or no log directory is set, both modes name the
     *     same table, or an existing table has the wrong layout
     * @throws IllegalStateException if the shard is open in another pipeline
     */
    public CdcPipeline build() {
      if (changeLog == null && currentState == null) {
        throw new IllegalArgumentException("Cannot build CDC pipeline: no target table: set changeLog or currentState");
      }
      if (changeLog != null && changeLog.equals(currentState)) {
        throw new IllegalArgumentException("Cannot build CDC pipeline: change log and current state need two tables: " + changeLog);
      }
      if (walDirectory == null) {
        throw new IllegalArgumentException("Cannot build CDC pipeline: no write-ahead log directory");
      }
      if (maxPending < batchSize) {
        throw new IllegalArgumentException("Cannot build CDC pipeline: pending bound below the batch size: "
            + maxPending + " < " + batchSize);
      }
      return new CdcPipeline(this);
    }
  }
}
