package dev.featurestore.cdc;

import static java.util.Objects.requireNonNull;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

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
 * pipelines (shards) may write one table, in one or several processes; one shard of a table may
 * be open in one pipeline only (a lease in the catalog database, see {@link Builder#shardLease}).
 */
public final class CdcPipeline implements AutoCloseable {
  private static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  private static final Pattern SHARD = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

  private final CdcSettings settings;
  private final String shard;
  private final PipelineMetrics metrics = new PipelineMetrics();
  private final BatchCommitter committer;
  private final EntryAcceptor acceptor;
  private final Flusher flusher;
  private final ShardLease lease;
  private final StreamMaintenance maintenance;

  private CdcPipeline(CdcSettings s) {
    this.settings = s;
    this.shard = s.shard();
    PipelineParts parts = PipelineParts.open(s, metrics);
    this.lease = parts.lease();
    this.committer = parts.committer();
    this.acceptor = parts.acceptor();
    this.flusher = parts.flusher();
    this.maintenance = parts.maintenance();
    flusher.start();
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
   * @throws InvalidArgumentException if the entry is invalid (messages in {@link CdcEntry})
   * @throws CdcBackpressureException under {@link Backpressure#FAIL_FAST} when the pending bound is reached
   * @throws StorageException if the write-ahead log cannot be written (the entry is not accepted)
   * @throws InvalidStateException if the pipeline is closed
   */
  public long createEntry(String operation, String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    return createEntry(CdcOperation.parse(operation), collection, docId, before, after);
  }

  /** {@link #createEntry(String, String, String, Map, Map)} with a typed operation. */
  public long createEntry(CdcOperation operation, String collection, String docId, Map<String, ?> before, Map<String, ?> after) {
    String id = CdcEntry.check(operation, collection, docId, before, after);
    // the images are logged as JSON, written before this returns: no copy of the maps is kept
    return acceptor.accept(0, operation, collection, id, null, json(before), json(after));
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
   * An own sequence id at or below the committed high-water mark of every target table is a
   * redelivery: it is skipped (returned, counted in {@link #redeliveredEntries()}, not logged);
   * one above the mark but not above the last accepted id is refused.
   *
   * @throws InvalidArgumentException {@code Cannot accept CDC entry: sequence id not above the
   *     shard's last: 5 <= 7}, or {@code Cannot accept CDC entry: wrong shard: s2, this pipeline
   *     writes s1}
   */
  public long append(CdcEntry entry) {
    InvalidArgumentException.requireNonNull(entry, "append CDC entry", "entry");
    if (!entry.shardId().isEmpty() && !entry.shardId().equals(shard)) {
      throw new InvalidArgumentException("Cannot accept CDC entry: wrong shard: " + entry.shardId()
          + ", this pipeline writes " + shard);
    }
    return accept(entry);
  }

  private long accept(CdcEntry entry) {
    return acceptor.accept(entry.sequenceId(), entry.operation(), entry.collection(), entry.docId(),
        entry.transactionId().orElse(null), entry.before().map(Json::write).orElse(null),
        entry.after().map(Json::write).orElse(null));
  }

  @SuppressWarnings("unchecked")
  private static String json(Map<String, ?> image) {
    return image == null ? null : Json.write((Map<String, Object>) image);
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
    long[] range = acceptor.sealForFlush();
    flusher.drain();
    // the batches may have been committed by the background flusher meanwhile: report them all
    return acceptor.committedBetween(range[0], range[1]);
  }

  // ---- state

  public String shardId() { return shard; }

  /** The modes this pipeline keeps. */
  public Set<CdcMode> modes() {
    return settings.modes();
  }

  /** The highest sequence id accepted (or recovered) in this shard; 0 if none ever was. */
  public long lastAcceptedSequence() {
    return acceptor.lastAccepted();
  }

  /** Entries replayed from the write-ahead log when this pipeline opened. */
  public long recoveredEntries() {
    return metrics.recovered();
  }

  /**
   * Entries {@link #append appended} with their own sequence id at or below the committed
   * high-water mark (redeliveries of a feed resuming from an older position): skipped, not
   * logged again, since this pipeline opened.
   */
  public long redeliveredEntries() {
    return metrics.redelivered.get();
  }

  /** Damaged write-ahead log records skipped on open under {@link WalRecovery#SKIP_CORRUPTED}. */
  public long skippedWalRecords() {
    return metrics.skippedWalRecords.get();
  }

  /** Entries the current-state table rejected since this pipeline opened, oldest first. */
  public List<DeadLetter> deadLetters() {
    return metrics.deadLetters();
  }

  /** The per-table high-water marks this pipeline knows (table name to highest committed sequence). */
  public Map<String, Long> marks() {
    return committer.marks();
  }

  public CdcMetrics metrics() { return metrics.snapshot(acceptor.pending(), committer.minCommitted()); }

  /** What the background maintenance of each target table did (see {@link Builder#maintenance}); empty when off. */
  public List<BackgroundMaintenanceStatus> maintenance() {
    return maintenance.statuses();
  }

  /** Write-ahead log segments on disk (for tests and tuning). */
  int walSegments() { return acceptor.walSegments(); }

  /**
   * Flushes what is pending, stops the background flusher and the tables' background maintenance
   * (waiting for a running step), and closes the log. If the final flush
   * fails, the pipeline still closes (the entries stay in the log for the next open) and the
   * failure is thrown. Safe to call twice.
   */
  @Override
  public void close() {
    if (acceptor.isClosed()) {
      return;
    }
    RuntimeException failure = null;
    try {
      flush();
    } catch (RuntimeException e) {
      failure = e;
    }
    acceptor.markClosed();
    flusher.stop();
    maintenance.close();
    lease.close();
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
    private CurrentStateLayout layout = CurrentStateLayout.MERGE_ON_READ;
    private WalRecovery walRecovery = WalRecovery.TOLERATE_TORN_TAIL;
    private int maxTypedColumns = 1_000;
    private Duration leaseDuration = DEFAULT_LEASE;
    private Hooks hooks = Hooks.NONE;
    private Clock leaseClock; // null: the store's clock
    private MaintenancePolicy maintenance = MaintenancePolicy.streaming();
    private boolean maintenanceExplicit;
    private String tablesLocation; // null: the store's warehouse

    private Builder(FeatureStore store) {
      this.store = InvalidArgumentException.requireNonNull(store, "build CDC pipeline", "store");
    }

    /** Keep a change log in this table (created if missing). */
    public Builder changeLog(TableId table) {
      this.changeLog = InvalidArgumentException.requireNonNull(table, "build CDC pipeline", "table");
      return this;
    }

    /** Keep the current state in this table (created if missing, in {@link #currentStateLayout}). */
    public Builder currentState(TableId table) {
      this.currentState = InvalidArgumentException.requireNonNull(table, "build CDC pipeline", "table");
      return this;
    }

    /** Letters, digits, {@code _ . -}; default {@code 0}. Sequence ids and marks are per shard. */
    public Builder shardId(String shardId) {
      InvalidArgumentException.requireNonNull(shardId, "build CDC pipeline", "shardId");
      InvalidArgumentException.check(SHARD.matcher(shardId).matches(),
          "Cannot set CDC shard id: only letters, digits, _ . - allowed: %s", shardId);
      this.shardId = shardId;
      return this;
    }

    /** Entries per commit; default 10,000. */
    public Builder batchSize(int batchSize) {
      InvalidArgumentException.check(batchSize >= 1, "Cannot set CDC batch size: must be positive: %s", batchSize);
      this.batchSize = batchSize;
      return this;
    }

    /** Longest time an accepted entry waits for its commit; default 1 s; zero disables the timer. */
    public Builder flushInterval(Duration interval) {
      InvalidArgumentException.requireNonNull(interval, "build CDC pipeline", "interval");
      if (interval.isNegative()) {
        throw new InvalidArgumentException("Cannot set CDC flush interval: negative: " + interval);
      }
      this.flushInterval = interval;
      return this;
    }

    public Builder compression(CdcCompression compression) {
      this.compression = InvalidArgumentException.requireNonNull(compression, "build CDC pipeline", "compression");
      return this;
    }

    /** The write-ahead log directory (required); each shard logs in its own subdirectory. */
    public Builder writeAheadLog(Path directory) {
      this.walDirectory = InvalidArgumentException.requireNonNull(directory, "build CDC pipeline", "directory");
      return this;
    }

    /** Default {@link FsyncPolicy#EVERY_BATCH}. */
    public Builder fsync(FsyncPolicy policy) {
      this.fsync = InvalidArgumentException.requireNonNull(policy, "build CDC pipeline", "policy");
      return this;
    }

    /** Attempts per batch and table before a flush fails (each on top of Iceberg's own retries); default 5. */
    public Builder commitRetries(int attempts) {
      if (attempts < 1) {
        throw new InvalidArgumentException("Cannot set CDC commit retries: must be at least 1: " + attempts);
      }
      this.commitRetries = attempts;
      return this;
    }

    /** First pause between attempts, doubled each time up to 2 s; default 100 ms. */
    public Builder retryBackoff(Duration backoff) {
      InvalidArgumentException.requireNonNull(backoff, "build CDC pipeline", "backoff");
      if (backoff.isNegative()) {
        throw new InvalidArgumentException("Cannot set CDC retry backoff: negative: " + backoff);
      }
      this.retryBackoff = backoff;
      return this;
    }

    /** What happens when {@code maxPending} entries wait for their commit; default BLOCK. */
    public Builder backpressure(Backpressure backpressure, long maxPending) {
      this.backpressure = InvalidArgumentException.requireNonNull(backpressure, "build CDC pipeline", "backpressure");
      if (maxPending < 1) {
        throw new InvalidArgumentException("Cannot set CDC pending bound: must be positive: " + maxPending);
      }
      this.maxPending = maxPending;
      return this;
    }

    /** Whether new document fields add columns and widenings promote them; default on. */
    public Builder schemaEvolution(boolean enabled) {
      this.evolveSchema = enabled;
      return this;
    }

    /** Buckets on doc id for a new copy-on-write current-state table (the unit of its rewrite); default 16. */
    public Builder currentStateBuckets(int buckets) {
      if (buckets < 1) {
        throw new InvalidArgumentException("Cannot set CDC current-state buckets: must be positive: " + buckets);
      }
      this.buckets = buckets;
      return this;
    }

    /** Layout of a new current-state table (default MERGE_ON_READ); an existing table keeps its own. */
    public Builder currentStateLayout(CurrentStateLayout layout) {
      this.layout = InvalidArgumentException.requireNonNull(layout, "build CDC pipeline", "layout");
      return this;
    }

    /**
     * At most this many typed columns in the current-state table besides its fixed ones (default
     * 1,000): fields beyond the cap are kept in {@code _doc} only, so one document with a huge
     * number of fields cannot make every row that wide.
     */
    public Builder currentStateTypedColumns(int max) {
      InvalidArgumentException.check(max >= 0, "Cannot set CDC current-state typed columns: negative: %s", max);
      this.maxTypedColumns = max;
      return this;
    }

    /**
     * What to do with a damaged write-ahead log record on open; default
     * {@link WalRecovery#TOLERATE_TORN_TAIL} (only an incomplete last record is cut off; any other
     * bad record fails the open with {@link WalCorruptionException}).
     */
    public Builder walRecovery(WalRecovery mode) {
      this.walRecovery = InvalidArgumentException.requireNonNull(mode, "build CDC pipeline", "mode");
      return this;
    }

    /**
     * How long the shard lease in the catalog database lasts without renewal (default 30 s; it is
     * renewed every third of it): after a holder dies, another pipeline may take the shard over
     * once it expired. Commits check it first; keep hosts' clocks well within it of each other.
     */
    public Builder shardLease(Duration duration) {
      InvalidArgumentException.requireNonNull(duration, "build CDC pipeline", "duration");
      InvalidArgumentException.check(duration.toMillis() >= 100, "Cannot set CDC shard lease: shorter than 100 ms: %s", duration);
      this.leaseDuration = duration;
      return this;
    }

    /**
     * No shard lease: only the log directory's lock file keeps a second pipeline off the shard.
     * Required for REST and caller-supplied catalogs (no database to hold the lease); the caller
     * then guarantees one writer per shard and table.
     */
    public Builder withoutShardLease() {
      this.leaseDuration = null;
      return this;
    }

    /**
     * Where the tables this pipeline creates go: {@code <location>/<namespace>/<table>} instead of
     * the store's warehouse. A relative location is a prefix in the store's own bucket or root
     * (beside {@code warehouse/}: {@code "cdc"} puts a table at {@code s3://<bucket>/<prefix>cdc/<ns>/<name>});
     * an absolute one ({@code s3://other/streams}, {@code /data/cdc}) is used as it is. Tables that
     * exist keep their location.
     */
    public Builder tablesLocation(String location) {
      this.tablesLocation = CdcTables.checkLocation(location);
      return this;
    }

    /**
     * Maintains the target tables in the background while the pipeline runs (see
     * {@link dev.featurestore.BackgroundMaintenance}); default {@link MaintenancePolicy#streaming()}
     * on catalogs with a database for its lease (SQLite, JDBC), on others only when set here.
     */
    public Builder maintenance(MaintenancePolicy policy) {
      this.maintenance = InvalidArgumentException.requireNonNull(policy, "build CDC pipeline", "policy");
      this.maintenanceExplicit = true;
      return this;
    }

    /** No background maintenance: the caller expires and compacts the tables some other way. */
    public Builder withoutMaintenance() {
      this.maintenance = null;
      return this;
    }

    /** Runs {@code action} after each commit lands, on the committing thread (see {@link AfterCommit}). */
    public Builder afterCommit(Runnable action) {
      return hooks(AfterCommit.around(hooks, InvalidArgumentException.requireNonNull(action, "build CDC pipeline", "action")));
    }

    Builder hooks(Hooks hooks) {
      this.hooks = requireNonNull(hooks, "hooks is null");
      return this;
    }

    /** Test seam: the clock the shard lease is granted and expires by; default the store's clock (FeatureStoreConfig.clock). */
    Builder leaseClock(Clock clock) {
      this.leaseClock = requireNonNull(clock, "clock is null");
      return this;
    }

    /**
     * Opens the pipeline: creates missing tables, reads their high-water marks, replays the log.
     *
     * @throws InvalidArgumentException if no table or no log directory is set, both modes name the
     *     same table, the pending bound is below the batch size, or an existing table has the wrong
     *     layout
     * @throws InvalidStateException if the shard is open in another pipeline
     * @throws WalCorruptionException if the log holds a bad record followed by valid ones (see
     *     {@link #walRecovery})
     */
    public CdcPipeline build() {
      return new CdcPipeline(new CdcSettings(store, changeLog, currentState, shardId, batchSize, flushInterval,
          compression, walDirectory, fsync, commitRetries, retryBackoff, backpressure, maxPending, evolveSchema, buckets,
          layout, walRecovery, maxTypedColumns, leaseDuration, leaseClock, maintenance, maintenanceExplicit, hooks,
          tablesLocation == null ? null : CdcTables.resolveLocation(store, tablesLocation)));
    }
  }
}
