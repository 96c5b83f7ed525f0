package dev.featurestore.core.maintenance;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.Compaction;
import dev.featurestore.CompactionResult;
import dev.featurestore.ExpireResult;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenanceListener;
import dev.featurestore.MaintenancePlan;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceProgress;
import dev.featurestore.MaintenanceProgress.Status;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceStep;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.TableMaintenance;
import dev.featurestore.core.base.TableHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * A maintenance plan decided from the table's current snapshot (metadata only: manifests are
 * read, data files are not). Runs compaction first (it creates a snapshot and makes files
 * unreachable), then manifest rewrite, then expiry (which deletes what no snapshot needs any
 * more), and orphan removal last (it must see the final metadata).
 */
final class PlannedMaintenance implements MaintenancePlan {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PlannedMaintenance.class);
  private final TableMaintenance maintenance; // runs the steps: the library's own, or another engine's
  private final MaintenancePolicy policy;
  private final List<MaintenanceStep> steps;
  private final String table;
  private final java.time.Clock clock;
  private final TableHandle handle;
  private final boolean independentSteps;
  /** What the COMPACT step runs (configured and planned when the plan was made); null without that step. */
  private final Compaction compactionStep;
  private MaintenanceListener listener = progress -> {};
  private boolean used = false;
  // what the steps finished so far did: the report, also after a later step failed (background maintenance counts it)
  private Optional<CompactionResult> compaction = Optional.empty();
  private Optional<RewriteManifestsResult> manifests = Optional.empty();
  private Optional<ExpireResult> expiry = Optional.empty();
  private Optional<OrphanFilesResult> orphans = Optional.empty();
  private long started;

  private PlannedMaintenance(TableMaintenance maintenance, MaintenancePolicy policy, List<MaintenanceStep> steps,
      TableHandle handle, boolean independentSteps, Compaction compactionStep) {
    this.maintenance = maintenance;
    this.compactionStep = compactionStep;
    this.independentSteps = independentSteps;
    this.handle = handle;
    String table = handle.id().toString();
    java.time.Clock clock = handle.config().clock();
    this.clock = clock;
    this.policy = policy;
    this.steps = List.copyOf(steps);
    this.table = table;
  }

  static PlannedMaintenance plan(TableMaintenance maintenance, TableHandle handle, MaintenancePolicy policy) {
    return plan(maintenance, handle, policy, false);
  }

  /**
   * With {@code onlyUseful}, for background maintenance that checks every few seconds: expiry only
   * when some snapshot would actually go (a threshold met by young snapshots would recompute
   * reachability at every check for nothing), and no orphan removal (it has its own interval).
   * Its steps are also independent: a step that fails (a compaction or manifest rewrite that keeps
   * losing to a stream's commits) does not keep the later ones (expiry) from running; the first
   * failure is thrown once every step had its turn.
   */
  static PlannedMaintenance plan(TableMaintenance maintenance, TableHandle handle, MaintenancePolicy policy,
      boolean onlyUseful) {
    return handle.translating("plan maintenance of table " + handle.id(), () -> {
      Table table = handle.refreshed();
      List<MaintenanceStep> steps = new ArrayList<>();
      Snapshot current = table.currentSnapshot();
      Compaction compaction = null;
      if (current != null) {
        // the compaction the step runs decides it: its planning of the files (done once, handed over
        // to it), its small-file size, minimum input files, deleted-rows threshold and size tiers
        Compaction executing = forPolicy(maintenance.compact(), policy);
        CompactionOperation deciding = executing instanceof CompactionOperation own && own.compacts(handle) ? own
            : (CompactionOperation) forPolicy(new CompactionOperation(handle), policy); // another engine's: our rules
        long target;
        try {
          target = deciding.targetFileSize(table);
        } catch (InvalidArgumentException e) {
          target = 0; // the table's target file size is not positive: no compaction can run, the other steps can
          LOG.warn("Maintenance plan of table {}: no compaction step: {}", handle.id(), e.getMessage());
        }
        CompactionOperation.Planned planned = target > 0 ? deciding.planAt(table, current, target) : null;
        String reason = planned == null ? null : compactionReason(planned, policy);
        // only when the compaction would rewrite something: a table may have more small files or delete
        // files than the thresholds and nothing to rewrite (tiers not full, few deleted rows, one small
        // file per partition)
        if (reason != null && !planned.groups().isEmpty()) {
          steps.add(new MaintenanceStep(MaintenanceTask.COMPACT, reason));
          compaction = executing;
        }
        int manifests = current.dataManifests(table.io()).size();
        if (manifests >= policy.manifestThreshold()) {
          steps.add(new MaintenanceStep(MaintenanceTask.REWRITE_MANIFESTS,
              "data manifests: " + manifests + " (threshold " + policy.manifestThreshold() + ")"));
        }
      }
      int snapshots = 0;
      for (Snapshot ignored : table.snapshots()) {
        snapshots++;
      }
      java.time.Clock clock = handle.config().clock();
      if (snapshots >= policy.snapshotThreshold() && (!onlyUseful
          || ExpiryCandidates.count(table, policy.retainLastSnapshots(),
              ExpiryCandidates.cutoff(table, policy, clock.instant())) > 0)) {
        steps.add(new MaintenanceStep(MaintenanceTask.EXPIRE_SNAPSHOTS, "snapshots: " + snapshots
            + " (threshold " + policy.snapshotThreshold() + ")"));
      }
      if (!onlyUseful && policy.removeOrphans() && !steps.isEmpty()) {
        steps.add(new MaintenanceStep(MaintenanceTask.REMOVE_ORPHAN_FILES,
            "other steps ran: files older than " + policy.orphanSafetyWindow() + " that nothing references"));
      }
      return new PlannedMaintenance(maintenance, policy, steps, handle, onlyUseful, compaction);
    });
  }

  /** Why {@code policy} would compact the planned files (small files or delete files over its thresholds), or null. */
  private static String compactionReason(CompactionOperation.Planned planned, MaintenancePolicy policy) {
    long smallFiles = 0;
    Set<String> deleteFiles = new HashSet<>();
    for (FileScanTask task : planned.tasks()) {
      if (task.file().fileSizeInBytes() < planned.small()) {
        smallFiles++;
      }
      for (DeleteFile delete : task.deletes()) {
        deleteFiles.add(delete.location());
      }
    }
    if (smallFiles >= policy.smallFileThreshold()) {
      return "small data files: " + smallFiles + " (threshold " + policy.smallFileThreshold() + ", smaller than "
          + planned.small() + " bytes)";
    } else if (deleteFiles.size() >= policy.deleteFileThreshold()) {
      return "delete files: " + deleteFiles.size() + " (threshold " + policy.deleteFileThreshold() + ")";
    }
    return null;
  }

  /** {@code compaction} with what {@code policy} sets (deleted-rows threshold, size tiers); the rest its defaults. */
  private static Compaction forPolicy(Compaction compaction, MaintenancePolicy policy) {
    Compaction configured = compaction.deletedRowsThreshold(policy.deletedRowsThreshold());
    return policy.compactionSizeRatio() > 0
        ? configured.sizeTiers(policy.compactionSizeRatio(), policy.compactionTierFiles())
        : configured;
  }

  @Override
  public List<MaintenanceStep> steps() {
    return steps;
  }

  @Override
  public synchronized MaintenancePlan listener(MaintenanceListener listener) {
    InvalidArgumentException.requireNonNull(listener, "run maintenance plan", "listener");
    checkPending();
    this.listener = listener;
    return this;
  }

  private void checkPending() {
    if (used) {
      throw new InvalidStateException("Cannot execute maintenance plan of table " + table + ": already executed");
    }
  }

  @Override
  public synchronized MaintenanceReport execute() {
    checkPending();
    used = true;
    started = System.nanoTime();
    int index = 0;
    RuntimeException failure = null;
    for (MaintenanceStep step : steps) {
      index++;
      listener.onProgress(new MaintenanceProgress(step.task(), index, steps.size(), Status.STARTED, ""));
      String message;
      try {
        switch (step.task()) {
          case COMPACT -> {
            CompactionResult r = compactionStep.execute();
            compaction = Optional.of(r);
            message = "rewrote " + r.rewrittenDataFiles() + " data files into " + r.addedDataFiles();
          }
          case REWRITE_MANIFESTS -> {
            RewriteManifestsResult r = maintenance.rewriteManifests();
            manifests = Optional.of(r);
            message = "data manifests " + r.manifestsBefore() + " -> " + r.manifestsAfter();
          }
          case EXPIRE_SNAPSHOTS -> {
            ExpireResult r = maintenance.expireSnapshots()
                .retainLast(policy.retainLastSnapshots())
                .olderThan(ExpiryCandidates.cutoff(handle.refreshed(), policy, clock.instant()))
                .execute();
            expiry = Optional.of(r);
            message = "expired " + r.expiredSnapshots() + " snapshots, deleted " + r.deletedFiles() + " files, "
                + r.bytesFreed() + " bytes";
          }
          case REMOVE_ORPHAN_FILES -> {
            OrphanFilesResult r = maintenance.removeOrphanFiles().olderThan(policy.orphanSafetyWindow()).execute();
            orphans = Optional.of(r);
            message = "removed " + r.candidates().size() + " orphan files, " + r.bytes() + " bytes";
          }
          default -> throw new IllegalStateException("Cannot run maintenance step: unknown task: " + step.task());
        }
      } catch (RuntimeException e) {
        listener.onProgress(new MaintenanceProgress(step.task(), index, steps.size(), Status.FAILED, e.getMessage()));
        if (!independentSteps) {
          throw e;
        }
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
        continue;
      }
      listener.onProgress(new MaintenanceProgress(step.task(), index, steps.size(), Status.FINISHED, message));
    }
    if (failure != null) {
      throw failure;
    }
    if (!steps.isEmpty()) {
      handle.record("maintenance_plan", null, java.util.Map.of("steps",
          steps.stream().map(s -> s.task().name().toLowerCase(java.util.Locale.ROOT)).toList(),
          "background", independentSteps));
    }
    return partialReport();
  }

  /** What the steps that finished did (all of them once {@link #execute()} returned). */
  synchronized MaintenanceReport partialReport() {
    List<MaintenanceStep> ran = new ArrayList<>();
    for (MaintenanceStep step : steps) {
      boolean done = switch (step.task()) {
        case COMPACT -> compaction.isPresent();
        case REWRITE_MANIFESTS -> manifests.isPresent();
        case EXPIRE_SNAPSHOTS -> expiry.isPresent();
        case REMOVE_ORPHAN_FILES -> orphans.isPresent();
      };
      if (done) {
        ran.add(step);
      }
    }
    long elapsed = used ? System.nanoTime() - started : 0;
    return new MaintenanceReport(used ? ran : List.of(), compaction, manifests, expiry, orphans, Duration.ofNanos(elapsed));
  }

  @Override
  public String toString() {
    return "MaintenancePlan" + steps;
  }
}
