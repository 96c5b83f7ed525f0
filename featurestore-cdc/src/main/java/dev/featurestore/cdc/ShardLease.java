package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import dev.featurestore.core.base.CatalogLease;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's ownership of its shard in each target table: one {@link CatalogLease} per
 * table, named {@code cdc:<table>#<shard>}, acquired when the pipeline opens, renewed in the
 * background every third of its duration, checked right before each commit (a lost one fails the
 * commit, which is not made) and released on close. The check reads the lease row: still this
 * pipeline's, with at least half its duration left, the commit starts within the duration of the
 * last renewal, which is what fences it; otherwise it renews the lease there and then. (It used to
 * renew before every commit: one more synced write to the catalog database per commit, ~10 ms
 * here.)
 */
final class ShardLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardLease.class);
  static final ShardLease NONE = new ShardLease();

  private final CatalogLease leases;
  private final String shard;
  private final Duration ttl;
  private final Clock clock;
  private final List<CatalogLease.Grant> grants = new ArrayList<>();
  private final ScheduledExecutorService renewer;
  private volatile String lost;

  private ShardLease() {
    this.leases = null;
    this.shard = null;
    this.ttl = null;
    this.clock = null;
    this.renewer = null;
  }

  private ShardLease(CatalogLease leases, String shard, Duration ttl, Clock clock) {
    this.leases = leases;
    this.shard = shard;
    this.ttl = ttl;
    this.clock = clock;
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "featurestore-cdc-lease-" + shard);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Acquires the shard's lease in every target table, or none when {@code s.leaseDuration()} is
   * null (the caller opted out).
   *
   * @throws CdcLeaseException if another pipeline holds one, naming the shard and the holder
   * @throws InvalidArgumentException if the store's catalog cannot hold leases (REST, custom)
   */
  static ShardLease acquire(CdcSettings s) {
    if (s.leaseDuration() == null) {
      return NONE;
    }
    List<TableId> tables = new ArrayList<>();
    if (s.changeLog() != null) {
      tables.add(s.changeLog());
    }
    if (s.currentState() != null) {
      tables.add(s.currentState());
    }
    Clock clock = s.leaseClock() != null ? s.leaseClock() : s.store().config().clock();
    Optional<CatalogLease> leases = CatalogLease.forStore(s.store().config(), clock);
    if (leases.isEmpty()) {
      throw new InvalidArgumentException("Cannot build CDC pipeline: the store's catalog ("
          + s.store().config().catalogKind() + ") has no database for a shard lease; call withoutShardLease() if"
          + " one writer per shard is guaranteed otherwise: " + s.shard());
    }
    ShardLease lease = new ShardLease(leases.get(), s.shard(), s.leaseDuration(), clock);
    String host = host();
    String logDir = s.walDirectory().resolve(s.shard()).toAbsolutePath().normalize().toString();
    String owner = host + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8)
        + " log " + logDir;
    try {
      for (TableId table : tables) {
        String name = "cdc:" + table + "#" + s.shard();
        try {
          lease.grants.add(leases.get().acquire(name, owner, s.leaseDuration()));
        } catch (InvalidStateException e) {
          CatalogLease.Grant holder = leases.get().holder(name).orElse(null);
          if (holder != null && holder.owner().startsWith(host + "/") && holder.owner().endsWith(" log " + logDir)) {
            // the holder used this host's log directory, whose lock this pipeline holds now: it is gone
            LOG.info("CDC shard {}: taking over the lease of {} from {}, which left the log directory", s.shard(),
                table, holder.owner());
            lease.grants.add(leases.get().takeOver(name, holder.owner(), owner, s.leaseDuration()));
            continue;
          }
          throw new CdcLeaseException("Cannot open CDC pipeline: shard " + s.shard() + " of table " + table
              + " is held by another pipeline: " + (holder == null ? "?" : holder.owner() + " until " + holder.expiresAt())
              + ": " + s.shard(), e);
        }
      }
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
    long period = Math.max(1, s.leaseDuration().toMillis() / 3);
    lease.renewer.scheduleWithFixedDelay(lease::renewQuietly, period, period, TimeUnit.MILLISECONDS);
    return lease;
  }

  /** {@code hooks}, with this lease checked at the last point before each commit ({@code commit.before}). */
  Hooks fencing(Hooks hooks) {
    return point -> {
      if (point.equals("commit.before")) {
        checkBeforeCommit();
      }
      hooks.at(point);
    };
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "unknown-host";
    }
  }

  private synchronized void renewQuietly() {
    if (lost != null) {
      return;
    }
    try {
      renewAll();
    } catch (CdcLeaseException e) {
      LOG.warn("{}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("Cannot renew the lease of CDC shard {} now; retrying: {}", shard, e.getMessage());
    }
  }

  private void renewAll() {
    for (int i = 0; i < grants.size(); i++) {
      renew(i);
    }
  }

  private void renew(int i) {
    try {
      grants.set(i, leases.renew(grants.get(i), ttl));
    } catch (InvalidStateException e) {
      lost = "Cannot commit CDC batch: the lease of shard " + shard + " was lost: " + e.getMessage();
      throw new CdcLeaseException(lost, e);
    }
  }

  /**
   * Right before a commit: reads every lease (one query in the catalog database); one no longer
   * held with this pipeline's token and at least half its duration left is renewed with its token
   * (one conditional update), which fails once another owner took it. So a commit is made only
   * while this pipeline demonstrably holds the shard.
   *
   * @throws CdcLeaseException if a lease was lost or taken over (the commit must not be made)
   * @throws StorageException if the lease cannot be renewed now, or CommitConflictException if the
   *     SQLite catalog is locked (the commit is retried)
   */
  synchronized void checkBeforeCommit() {
    if (leases == null) {
      return;
    }
    if (lost != null) {
      throw new CdcLeaseException(lost);
    }
    long least = clock.millis() + ttl.toMillis() / 2;
    for (int i = 0; i < grants.size(); i++) {
      CatalogLease.Grant held = grants.get(i);
      Optional<CatalogLease.Grant> row = leases.holder(held.name());
      if (row.isEmpty() || row.get().token() != held.token() || !row.get().owner().equals(held.owner())
          || row.get().expiresAt().toEpochMilli() < least) {
        renew(i);
      }
    }
  }

  @Override
  public synchronized void close() {
    if (leases == null) {
      return;
    }
    renewer.shutdownNow();
    for (CatalogLease.Grant g : grants) {
      try {
        leases.release(g);
      } catch (RuntimeException e) {
        LOG.warn("Cannot release the lease of CDC shard {}: it expires by itself: {}", shard, e.getMessage());
      }
    }
    grants.clear();
    leases.close();
  }
}
