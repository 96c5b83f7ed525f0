package dev.featurestore.core.maintenance;

import dev.featurestore.InvalidArgumentException;
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
import dev.featurestore.core.base.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/**
 * A maintenance plan decided from the table's current snapshot (metadata only: manifests are
 * read, data files are not). Runs compaction first (it creates a snapshot and makes files
 * unreachable), then manifest rewrite, then expiry (which deletes what no snapshot needs any
 * more), and orphan removal last (it must see the final metadata).
 */
final class PlannedMaintenance implements MaintenancePlan {
  private final Maintenance maintenance;
  private final MaintenancePolicy policy;
  private final List<MaintenanceStep> steps;
  private final String table;
  private final java.time.Clock clock;
  private final TableHandle handle;
  private MaintenanceListener listener = progress -> {};
  private boolean used = false;

  private PlannedMaintenance(Maintenance maintenance, MaintenancePolicy policy, List<MaintenanceStep> steps,
      TableHandle handle) {
    this.maintenance = maintenance;
    this.handle = handle;
    String table = handle.id().toString();
    java.time.Clock clock = handle.config().clock();
    this.clock = clock;
    this.policy = policy;
    this.steps = List.copyOf(steps);
    this.table = table;
  }

  static PlannedMaintenance plan(Maintenance maintenance, TableHandle handle, MaintenancePolicy policy) {
    return handle.translating("plan maintenance of table " + handle.id(), () -> {
      Table table = handle.refreshed();
      List<MaintenanceStep> steps = new ArrayList<>();
      Snapshot current = table.currentSnapshot();
      if (current != null) {
        long target = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
        long small = Math.max(1, target * 3 / 4);
        long smallFiles = 0;
        Set<String> deleteFiles = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(current.snapshotId()).planFiles()) {
          for (FileScanTask task : tasks) {
            if (task.file().fileSizeInBytes() < small) {
              smallFiles++;
            }
            for (DeleteFile delete : task.deletes()) {
              deleteFiles.add(delete.location());
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        if (smallFiles >= policy.smallFileThreshold()) {
          steps.add(new MaintenanceStep(MaintenanceTask.COMPACT, "small data files: " + smallFiles
              + " (threshold " + policy.smallFileThreshold() + ", smaller than " + small + " bytes)"));
        } else if (deleteFiles.size() >= policy.deleteFileThreshold()) {
          steps.add(new MaintenanceStep(MaintenanceTask.COMPACT,
              "delete files: " + deleteFiles.size() + " (threshold " + policy.deleteFileThreshold() + ")"));
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
      if (snapshots >= policy.snapshotThreshold()) {
        steps.add(new MaintenanceStep(MaintenanceTask.EXPIRE_SNAPSHOTS, "snapshots: " + snapshots
            + " (threshold " + policy.snapshotThreshold() + ")"));
      }
      if (policy.removeOrphans() && !steps.isEmpty()) {
        steps.add(new MaintenanceStep(MaintenanceTask.REMOVE_ORPHAN_FILES,
            "other steps ran: files older than " + policy.orphanSafetyWindow() + " that nothing references"));
      }
      return new PlannedMaintenance(maintenance, policy, steps, handle);
    });
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
    long start = System.nanoTime();
    Optional<CompactionResult> compaction = Optional.empty();
    Optional<RewriteManifestsResult> manifests = Optional.empty();
    Optional<ExpireResult> expiry = Optional.empty();
    Optional<OrphanFilesResult> orphans = Optional.empty();
    int index = 0;
    for (MaintenanceStep step : steps) {
      index++;
      listener.onProgress(new MaintenanceProgress(step.task(), index, steps.size(), Status.STARTED, ""));
      String message;
      try {
        switch (step.task()) {
          case COMPACT -> {
            CompactionResult r = maintenance.compact().execute();
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
                .olderThan(clock.instant().minus(policy.maxSnapshotAge()))
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
        throw e;
      }
      listener.onProgress(new MaintenanceProgress(step.task(), index, steps.size(), Status.FINISHED, message));
    }
    handle.record("maintenance_plan", null, java.util.Map.of("steps",
        steps.stream().map(s -> s.task().name().toLowerCase(java.util.Locale.ROOT)).toList()));
    return new MaintenanceReport(steps, compaction, manifests, expiry, orphans, Duration.ofNanos(System.nanoTime() - start));
  }

  @Override
  public String toString() {
    return "MaintenancePlan" + steps;
  }
}
