package dev.featurestore.spark;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidStateException;
import dev.featurestore.TableId;
import dev.featurestore.core.base.CatalogLease;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table's maintenance lease ({@link CatalogLease#maintenanceLeaseName}), held while Spark
 * maintains the table, so that Spark and the library's background maintenance (in this process or
 * another) never maintain one table at once. Taken before an operation (refused if another owner
 * holds it), renewed every third of its duration while a Spark action runs (an action cannot
 * check a lease midway) and right before each step, released after the outermost operation. A
 * catalog without a database the library can reach (REST) has no lease: Spark's operations then
 * run unguarded, as the library's own do there. Used by one thread at a time.
 */
final class MaintenanceLease {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceLease.class);

  private final FeatureStoreConfig config;
  private final TableId table;
  private final String name;
  private final String owner;
  // used by the thread running the operations (not thread-safe); the renewer touches grant and lost only
  private int depth;
  private CatalogLease lease; // open while depth > 0
  private Duration ttl;
  private volatile CatalogLease.Grant grant;
  private volatile String lost;
  private ScheduledExecutorService renewer;

  MaintenanceLease(FeatureStoreConfig config, TableId table, String applicationId) {
    this.config = config;
    this.table = table;
    this.name = CatalogLease.maintenanceLeaseName(table);
    this.owner = "spark/" + applicationId + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  String owner() {
    return owner;
  }

  /** Runs {@code action} holding the lease for {@code ttl} at a time. */
  <T> T run(Duration ttl, Supplier<T> action) {
    if (depth == 0) {
      take(ttl);
    }
    depth++;
    try {
      check();
      return action.get();
    } finally {
      depth--;
      if (depth == 0) {
        free();
      }
    }
  }

  /** Renews the lease now (before a step); throws if it was lost. */
  void check() {
    if (lost != null) {
      throw new InvalidStateException("Cannot run maintenance of table " + table + " on Spark: " + lost);
    }
    CatalogLease.Grant held = grant;
    if (lease != null && held != null) {
      try {
        grant = lease.renew(held, ttl);
      } catch (InvalidStateException e) {
        lost = e.getMessage();
        throw new InvalidStateException("Cannot run maintenance of table " + table + " on Spark: " + lost, e);
      }
    }
  }

  private void take(Duration duration) {
    this.ttl = duration;
    this.lost = null;
    Optional<CatalogLease> opened = CatalogLease.forStore(config, config.clock());
    if (opened.isEmpty()) {
      return;
    }
    lease = opened.get();
    try {
      grant = lease.acquire(name, owner, duration);
    } catch (RuntimeException e) {
      lease.close();
      lease = null;
      throw e;
    }
    long every = Math.max(1, duration.toMillis() / 3);
    renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "featurestore-spark-lease-" + table);
      t.setDaemon(true);
      return t;
    });
    CatalogLease held = lease;
    renewer.scheduleWithFixedDelay(() -> renew(held), every, every, TimeUnit.MILLISECONDS);
  }

  private void renew(CatalogLease held) {
    CatalogLease.Grant current = grant;
    if (current == null || lost != null) {
      return;
    }
    try {
      grant = held.renew(current, ttl);
    } catch (InvalidStateException e) {
      lost = e.getMessage();
      LOG.warn("Maintenance of table {} on Spark: lease lost while an action ran: {}", table, e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("Maintenance of table {} on Spark: cannot renew the lease (retried): {}", table, e.toString());
    }
  }

  private void free() {
    if (renewer != null) {
      renewer.shutdownNow();
      try {
        renewer.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      renewer = null;
    }
    if (lease != null) {
      try {
        if (grant != null && lost == null) {
          lease.release(grant);
        }
      } catch (RuntimeException e) {
        LOG.warn("Maintenance of table {} on Spark: cannot release the lease (it expires by itself): {}", table,
            e.toString());
      } finally {
        lease.close();
        lease = null;
        grant = null;
      }
    }
  }
}
