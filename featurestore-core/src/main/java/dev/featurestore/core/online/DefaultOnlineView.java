package dev.featurestore.core.online;

import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MetricsListener;
import dev.featurestore.OnlineBatch;
import dev.featurestore.OnlineLag;
import dev.featurestore.OnlineMaterialization;
import dev.featurestore.OnlineRow;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.OnlineViewMetrics;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.TableHandle;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An online view: reads through {@link ViewReads}, materializations through {@link Materializer}. */
final class DefaultOnlineView implements OnlineView {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultOnlineView.class);

  private final TableHandle handle;
  private final OnlineViewDefinition definition;
  private final ViewDatabase db;
  private final ViewLayout layout;
  private final ViewReads reads;
  private final Clock clock;
  private final Hooks hooks;
  private final Runnable onClose;
  private final ReentrantLock materializing = new ReentrantLock();
  private final AtomicBoolean pending = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final LongAdder materializations = new LongAdder();
  private final LongAdder rebuilds = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private volatile OnlineMaterialization last;
  private volatile ScheduledExecutorService thread; // created on first need

  DefaultOnlineView(TableHandle handle, OnlineViewDefinition definition, ViewDatabase db, ViewLayout layout, Hooks hooks,
      Runnable onClose) {
    this.handle = handle;
    this.definition = definition;
    this.db = db;
    this.layout = layout;
    this.clock = handle.config().clock();
    this.hooks = hooks;
    this.onClose = onClose;
    this.reads = new ViewReads(db, layout, definition, clock, handle.table().schema());
    definition.refreshEvery().ifPresent(every -> thread().scheduleWithFixedDelay(this::materializeQuietly,
        every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS));
  }

  @Override
  public OnlineViewDefinition definition() {
    return definition;
  }

  @Override
  public List<String> features() {
    return reads.features();
  }

  @Override
  public OnlineRow get(Object key) {
    return reads.get(key);
  }

  @Override
  public OnlineBatch get(Collection<?> keys, Collection<String> features) {
    return reads.get(keys, features);
  }

  @Override
  public OnlineMaterialization materialize() {
    return materialize(false);
  }

  @Override
  public OnlineMaterialization rebuild() {
    return materialize(true);
  }

  private OnlineMaterialization materialize(boolean full) {
    String what = "materialize online view " + definition.name();
    checkOpen(what);
    materializing.lock();
    try {
      long start = System.nanoTime();
      Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
      Materializer.Outcome outcome;
      try {
        outcome = new Materializer(table, db, layout, handle.workers(), hooks, clock::millis).run(full);
      } catch (SQLException e) {
        throw db.failure(what, e);
      } catch (FeatureStoreException e) {
        throw e;
      } catch (RuntimeException e) {
        throw Errors.translate(e, what);
      }
      reads.reloadColumns();
      OnlineMaterialization result = new OnlineMaterialization(definition.name(), handle.id(), outcome.mode(),
          outcome.reason(), outcome.from().map(OptionalLong::of).orElse(OptionalLong.empty()),
          outcome.to().map(s -> OptionalLong.of(s.snapshotId())).orElse(OptionalLong.empty()), outcome.rowsRead(),
          outcome.keysWritten(), Duration.ofNanos(System.nanoTime() - start), lag(table));
      materializations.increment();
      if (result.mode() == OnlineMaterialization.Mode.FULL) {
        rebuilds.increment();
      }
      last = result;
      if (result.mode() != OnlineMaterialization.Mode.UP_TO_DATE) {
        LOG.info("Online view {} of {}: {} to snapshot {} ({}): {} rows read, {} keys written in {} ms", definition.name(),
            handle.id(), result.mode(), result.toSnapshotId(), result.reason(), result.rowsRead(), result.keysWritten(),
            result.duration().toMillis());
      }
      report(result);
      return result;
    } catch (RuntimeException e) {
      failures.increment();
      throw e;
    } finally {
      materializing.unlock();
    }
  }

  private void report(OnlineMaterialization result) {
    Optional<MetricsListener> listener = handle.config().metricsListener();
    if (listener.isPresent()) {
      try {
        listener.get().onOnlineMaterialization(result);
      } catch (RuntimeException e) {
        LOG.warn("Metrics listener failed on an online materialization: {}", e.toString());
      }
    }
  }

  private void materializeQuietly() {
    if (closed.get()) {
      return;
    }
    try {
      materialize(false);
    } catch (RuntimeException e) {
      LOG.warn("Cannot materialize online view {}: {}", definition.name(), e.toString());
    }
  }

  @Override
  public void requestMaterialize() {
    checkOpen("request materialization of online view " + definition.name());
    if (pending.compareAndSet(false, true)) {
      thread().execute(() -> {
        pending.set(false);
        materializeQuietly();
      });
    }
  }

  private ScheduledExecutorService thread() {
    ScheduledExecutorService t = thread;
    if (t == null) {
      synchronized (this) {
        t = thread;
        if (t == null) {
          t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread worker = new Thread(r, "featurestore-online-" + definition.name());
            worker.setDaemon(true);
            return worker;
          });
          thread = t;
        }
      }
    }
    return t;
  }

  @Override
  public OnlineLag lag() {
    checkOpen("read lag of online view " + definition.name());
    return lag(handle.translating("refresh table " + handle.id(), handle::refreshed));
  }

  private OnlineLag lag(Table table) {
    Instant now = clock.instant();
    Optional<ViewDatabase.Meta> meta = reads.meta();
    Optional<Long> at = meta.flatMap(ViewDatabase.Meta::snapshotId);
    Snapshot current = table.currentSnapshot();
    OptionalLong currentId = current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId());
    long behind;
    Instant oldestMissing = null;
    if (current == null || (at.isPresent() && at.get() == current.snapshotId())) {
      behind = 0;
    } else if (at.isEmpty() || SnapshotUtil.isAncestorOf(table, current.snapshotId(), at.get())) {
      behind = 0;
      for (Snapshot s : SnapshotUtil.ancestorsBetween(current.snapshotId(), at.orElse(null), table::snapshot)) {
        behind++;
        oldestMissing = Instant.ofEpochMilli(s.timestampMillis());
      }
    } else {
      behind = -1;
      oldestMissing = Instant.ofEpochMilli(current.timestampMillis());
    }
    Optional<Instant> committed = at.map(id -> Instant.ofEpochMilli(meta.get().committedMillis()));
    Duration age = committed.map(c -> nonNegative(Duration.between(c, now))).orElse(Duration.ZERO);
    Duration lag = oldestMissing == null ? Duration.ZERO : nonNegative(Duration.between(oldestMissing, now));
    return new OnlineLag(at.map(OptionalLong::of).orElse(OptionalLong.empty()), committed,
        at.map(id -> Instant.ofEpochMilli(meta.get().materializedMillis())), age, currentId, behind, lag);
  }

  private static Duration nonNegative(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }

  @Override
  public OnlineViewMetrics metrics() {
    OnlineLag lag = lag();
    return new OnlineViewMetrics(reads.reads(), reads.found(), reads.missing(), reads.expired(), materializations.sum(),
        rebuilds.sum(), failures.sum(), Optional.ofNullable(last), lag);
  }

  private void checkOpen(String what) {
    if (closed.get()) {
      throw new InvalidStateException("Cannot " + what + ": the online view is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      ScheduledExecutorService t = thread;
      if (t != null) {
        t.shutdownNow();
      }
      materializing.lock(); // a running materialization finishes (or rolls back) first
      try {
        db.close();
      } finally {
        materializing.unlock();
      }
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return "OnlineView{" + definition.name() + " on " + handle.id() + ", " + db.file() + "}";
  }

}
