package dev.featurestore.core.maintenance;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceProgress;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceRun;
import dev.featurestore.MaintenanceRun.Lease;
import dev.featurestore.MaintenanceRun.Outcome;
import dev.featurestore.MaintenanceStep;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.MetricsListener;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.core.base.CatalogLease;
import dev.featurestore.core.base.TableHandle;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.TableProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link MaintenancePolicy} on one table on its own daemon thread, every
 * {@link MaintenancePolicy#checkEvery()}, while this process holds the table's maintenance lease
 * ({@code maintenance:<table>}, a {@link CatalogLease} in the catalog database). Each check:
 * take or renew the lease (skip the check if another process holds it), set the table's metadata
 * retention once per grant, plan (metadata only), run the due steps renewing the lease before each
 * one (a lease taken over stops the run before its next step), and remove orphans every
 * {@link MaintenancePolicy#removeOrphansEvery()}. A failed check (a conflict with a writer, an
 * unknown commit outcome, a storage failure) is given up and the next check plans again from the
 * table as it is then: nothing is retried blindly, and no writer's commit waits for it beyond the
 * catalog's own commit lock.
 */
final class BackgroundMaintainer implements BackgroundMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundMaintainer.class);

  private final Maintenance maintenance;
  private final TableHandle handle;
  private final MaintenancePolicy policy;
  private final Optional<CatalogLease> lease;
  private final String leaseName;
  private final String owner;
  private final Clock clock;
  private final Set<BackgroundMaintenance> registry;
  private final ScheduledExecutorService executor;
  private final MaintenanceCounters counters;
  // written under this (one check at a time); read by status()
  private volatile CatalogLease.Grant grant;
  private long propertiesSetForToken = -1;
  private Instant lastOrphanRemoval;
  private volatile boolean closed;

  private BackgroundMaintainer(Maintenance maintenance, TableHandle handle, MaintenancePolicy policy,
      Set<BackgroundMaintenance> registry) {
    this.maintenance = maintenance;
    this.handle = handle;
    this.policy = policy;
    this.registry = registry;
    this.clock = handle.config().clock();
    this.lease = CatalogLease.forStore(handle.config(), clock);
    this.leaseName = CatalogLease.maintenanceLeaseName(handle.id());
    this.owner = host() + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.counters = new MaintenanceCounters(handle.id());
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "featurestore-maintenance-" + handle.id());
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts checking {@code handle}'s table; the first check runs after the policy's interval. */
  static BackgroundMaintainer start(Maintenance maintenance, TableHandle handle, MaintenancePolicy policy,
      Set<BackgroundMaintenance> registry) {
    BackgroundMaintainer m = new BackgroundMaintainer(maintenance, handle, policy, registry);
    registry.add(m);
    long every = policy.checkEvery().toMillis();
    m.executor.scheduleWithFixedDelay(m::checkQuietly, every, every, TimeUnit.MILLISECONDS);
    LOG.debug("Started background maintenance of table {} as {}: {}", handle.id(), m.owner, policy);
    return m;
  }

  /** The scheduled check: never throws, or the executor would stop scheduling it. */
  private void checkQuietly() {
    try {
      check();
    } catch (Throwable e) {
      LOG.warn("Background maintenance of table {} failed: {}", handle.id(), e.toString());
    }
  }

  /** One check (the scheduled one, and tests in this package that call it directly). */
  synchronized MaintenanceRun check() {
    long start = System.nanoTime();
    if (closed) {
      return run(Outcome.SKIPPED, grant == null ? Lease.HELD_ELSEWHERE : Lease.HELD, List.of(), start, "closed");
    }
    Lease leaseState;
    try {
      leaseState = holdLease();
    } catch (RuntimeException e) {
      return failed(Outcome.FAILED, grant == null ? Lease.HELD_ELSEWHERE : Lease.HELD, null, start, e);
    }
    if (leaseState == Lease.HELD_ELSEWHERE || leaseState == Lease.LOST) {
      return run(Outcome.SKIPPED, leaseState, List.of(), start, "the lease is held by another process");
    }
    PlannedMaintenance plan = null;
    try {
      setMetadataRetention();
      plan = PlannedMaintenance.plan(maintenance, handle, policy, true);
      Instant now = clock.instant();
      boolean orphansDue = policy.removeOrphans() && (lastOrphanRemoval == null
          || !now.isBefore(lastOrphanRemoval.plus(policy.removeOrphansEvery())));
      if (plan.steps().isEmpty() && !orphansDue) {
        return run(Outcome.NOTHING_TO_DO, leaseState, List.of(), start, "below every threshold");
      }
      MaintenanceReport report = plan.listener(this::fenceBeforeStep).execute();
      Optional<OrphanFilesResult> orphans = Optional.empty();
      if (orphansDue) {
        fence();
        orphans = Optional.of(maintenance.removeOrphanFiles().olderThan(policy.orphanSafetyWindow()).execute());
        lastOrphanRemoval = now;
      }
      return done(Outcome.DONE, leaseState, report, orphans, start, "");
    } catch (LeaseLost e) {
      return done(Outcome.FAILED, closed ? leaseState : Lease.LOST, partial(plan), Optional.empty(), start, e.getMessage());
    } catch (RuntimeException e) {
      Outcome outcome = e instanceof CommitStateUnknownException ? Outcome.COMMIT_STATE_UNKNOWN
          : e instanceof CommitConflictException ? Outcome.CONFLICT : Outcome.FAILED;
      return failed(outcome, leaseState, plan, start, e);
    }
  }

  /** Takes or renews the lease; HELD_ELSEWHERE or LOST when this process must not maintain now. */
  private Lease holdLease() {
    if (lease.isEmpty()) {
      return Lease.NONE;
    }
    Duration ttl = policy.leaseDuration();
    if (grant != null) {
      try {
        grant = lease.get().renew(grant, ttl);
        return Lease.HELD;
      } catch (InvalidStateException e) {
        lostLease(e);
        return Lease.LOST;
      }
    }
    Optional<CatalogLease.Grant> before = lease.get().holder(leaseName);
    try {
      grant = lease.get().acquire(leaseName, owner, ttl);
    } catch (InvalidStateException e) {
      return Lease.HELD_ELSEWHERE;
    }
    boolean takenOver = before.isPresent() && !before.get().owner().equals(owner)
        && before.get().expiresAt().toEpochMilli() > 0 && before.get().token() < grant.token();
    if (takenOver) {
      counters.leaseTakeovers.incrementAndGet();
      LOG.info("Maintenance of table {}: took the lease over from {} (expired {}), token {}", handle.id(),
          before.get().owner(), before.get().expiresAt(), grant.token());
      return Lease.TAKEN_OVER;
    }
    LOG.debug("Maintenance of table {}: lease acquired, token {}", handle.id(), grant.token());
    return Lease.ACQUIRED;
  }

  private void lostLease(RuntimeException e) {
    grant = null;
    counters.leaseLosses.incrementAndGet();
    LOG.warn("Maintenance of table {}: lease lost, stopped until it is free again: {}", handle.id(), e.getMessage());
  }

  /** Renews the lease right before a step: a step starts only within a lease duration of a renewal. */
  private void fenceBeforeStep(MaintenanceProgress progress) {
    if (progress.status() == MaintenanceProgress.Status.STARTED) {
      fence();
    }
  }

  private void fence() {
    if (closed) {
      throw new LeaseLost("Cannot run maintenance step of table " + handle.id() + ": it is closing: " + handle.id());
    }
    if (lease.isEmpty()) {
      return;
    }
    try {
      grant = lease.get().renew(grant, policy.leaseDuration());
    } catch (InvalidStateException e) {
      lostLease(e);
      throw new LeaseLost(e.getMessage());
    }
  }

  /** Old metadata.json files bounded by the commits themselves; set once per grant (and re-set after a takeover). */
  private void setMetadataRetention() {
    long token = grant == null ? 0 : grant.token();
    if (propertiesSetForToken == token) {
      return;
    }
    String versions = Integer.toString(policy.metadataVersionsToKeep());
    Map<String, String> properties = handle.translating("refresh table " + handle.id(), handle::refreshed).properties();
    if (!"true".equals(properties.get(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED))
        || !versions.equals(properties.get(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX))) {
      fence();
      handle.commitLocked(() -> {
        handle.table().updateProperties()
            .set(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true")
            .set(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, versions)
            .commit();
        return null;
      });
    }
    propertiesSetForToken = token;
  }

  private static MaintenanceReport partial(PlannedMaintenance plan) {
    return plan == null ? null : plan.partialReport();
  }

  private MaintenanceRun failed(Outcome outcome, Lease leaseState, PlannedMaintenance plan, long start, RuntimeException e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    if (outcome == Outcome.COMMIT_STATE_UNKNOWN) {
      LOG.warn("Maintenance of table {}: a commit's outcome is unknown; not retried, the next check re-reads the table: {}",
          handle.id(), message);
    } else if (outcome == Outcome.CONFLICT) {
      LOG.info("Maintenance of table {}: gave way to a concurrent commit; planned again at the next check: {}",
          handle.id(), message);
    } else {
      LOG.warn("Maintenance of table {} failed; tried again at the next check: {}", handle.id(), message);
    }
    return done(outcome, leaseState, partial(plan), Optional.empty(), start, message);
  }

  private MaintenanceRun run(Outcome outcome, Lease leaseState, List<MaintenanceTask> tasks, long start, String message) {
    return report(new MaintenanceRun(handle.id(), outcome, leaseState, token(), tasks, 0, 0, 0, 0, 0, 0,
        Duration.ofNanos(System.nanoTime() - start), message));
  }

  private MaintenanceRun done(Outcome outcome, Lease leaseState, MaintenanceReport report,
      Optional<OrphanFilesResult> orphans, long start, String failure) {
    List<MaintenanceTask> tasks = new ArrayList<>();
    if (report != null) {
      report.steps().stream().map(MaintenanceStep::task).forEach(tasks::add);
    }
    orphans.ifPresent(o -> tasks.add(MaintenanceTask.REMOVE_ORPHAN_FILES));
    Optional<CompactionResult> c = report == null ? Optional.empty() : report.compaction();
    Optional<RewriteManifestsResult> m = report == null ? Optional.empty() : report.manifests();
    Optional<ExpireResult> x = report == null ? Optional.empty() : report.expiry();
    long compacted = c.map(CompactionResult::rewrittenDataFiles).orElse(0L);
    long deletes = c.map(CompactionResult::removedDeleteFiles).orElse(0L);
    long manifests = m.filter(r -> r.snapshotId().isPresent()).map(RewriteManifestsResult::manifestsBefore).orElse(0L);
    long expired = x.map(r -> (long) r.expiredSnapshotIds().size()).orElse(0L);
    long removed = orphans.map(o -> (long) o.candidates().size()).orElse(0L);
    long freed = x.map(ExpireResult::bytesFreed).orElse(0L) + orphans.map(OrphanFilesResult::bytes).orElse(0L);
    long carried = c.map(CompactionResult::carriedDeletes).orElse(0L);
    String summary = "compacted " + compacted + " data files (" + deletes + " delete files folded"
        + (carried > 0 ? ", " + carried + " deletes committed during the rewrite carried over" : "") + "), rewrote "
        + manifests + " manifests, expired " + expired + " snapshots, removed " + removed + " orphan files, freed "
        + freed + " bytes";
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    if (compacted + manifests + expired + removed > 0) {
      LOG.info("Maintained table {} (lease token {}): {} in {} ms{}", handle.id(), token(), summary, elapsed.toMillis(),
          failure.isEmpty() ? "" : "; then failed: " + failure);
    }
    return report(new MaintenanceRun(handle.id(), outcome, leaseState, token(), tasks, expired, compacted, deletes,
        manifests, removed, freed, elapsed, failure.isEmpty() ? summary : failure));
  }

  private long token() {
    return grant == null ? 0 : grant.token();
  }

  private MaintenanceRun report(MaintenanceRun run) {
    counters.add(run, clock.instant());
    Optional<MetricsListener> listener = handle.config().metricsListener();
    if (listener.isPresent()) {
      try {
        listener.get().onMaintenance(run);
      } catch (RuntimeException e) {
        LOG.warn("Metrics listener failed on maintenance of table {}: {}", handle.id(), e.toString());
      }
    }
    return run;
  }

  @Override
  public BackgroundMaintenanceStatus status() {
    return counters.status(!closed, lease.isEmpty() || grant != null);
  }

  /** The owner name this maintainer holds the lease under (host/pid/id). */
  String owner() {
    return owner;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    registry.remove(this);
    executor.shutdown();
    boolean finished;
    try {
      // a running step is finished, not interrupted: a compaction or expiry cut short would leave files behind
      finished = executor.awaitTermination(policy.leaseDuration().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finished = false;
    }
    if (!finished) {
      // abandoned: keep the lease (it expires), so no second maintainer starts while this step may still run
      executor.shutdownNow();
      LOG.warn("Maintenance of table {}: a step still runs after {}; abandoned, its lease expires", handle.id(),
          policy.leaseDuration());
      return;
    }
    synchronized (this) {
      lease.ifPresent(l -> {
        try {
          if (grant != null) {
            l.release(grant);
          }
        } catch (RuntimeException e) {
          LOG.debug("Cannot release maintenance lease of table {}: {}", handle.id(), e.toString());
        } finally {
          grant = null;
          l.close();
        }
      });
    }
    LOG.debug("Stopped background maintenance of table {}: {}", handle.id(), status());
  }

  @Override
  public String toString() {
    return "BackgroundMaintenance{" + handle.id() + ", " + owner + "}";
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "localhost";
    }
  }

  /** The lease was taken over (or the maintainer is closing) between two steps: stop the run. */
  private static final class LeaseLost extends RuntimeException {
    LeaseLost(String message) {
      super(message, null, false, false);
    }
  }
}
