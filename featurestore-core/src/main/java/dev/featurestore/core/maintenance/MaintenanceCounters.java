package dev.featurestore.core.maintenance;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.MaintenanceRun;
import dev.featurestore.TableId;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** What a {@link BackgroundMaintainer} did since it started, summed from its checks. Thread-safe. */
final class MaintenanceCounters {
  private final TableId table;
  final AtomicLong rounds = new AtomicLong();
  final AtomicLong skipped = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong snapshotsExpired = new AtomicLong();
  final AtomicLong dataFilesCompacted = new AtomicLong();
  final AtomicLong deleteFilesRemoved = new AtomicLong();
  final AtomicLong manifestsRewritten = new AtomicLong();
  final AtomicLong orphanFilesRemoved = new AtomicLong();
  final AtomicLong bytesFreed = new AtomicLong();
  final AtomicLong leaseTakeovers = new AtomicLong();
  final AtomicLong leaseLosses = new AtomicLong();
  private volatile Instant lastRun;
  private volatile String lastError;

  MaintenanceCounters(TableId table) {
    this.table = table;
  }

  void add(MaintenanceRun run, Instant at) {
    rounds.incrementAndGet();
    switch (run.outcome()) {
      case SKIPPED -> skipped.incrementAndGet();
      case CONFLICT, COMMIT_STATE_UNKNOWN, FAILED -> {
        failed.incrementAndGet();
        lastError = run.message();
      }
      default -> { }
    }
    snapshotsExpired.addAndGet(run.snapshotsExpired());
    dataFilesCompacted.addAndGet(run.dataFilesCompacted());
    deleteFilesRemoved.addAndGet(run.deleteFilesRemoved());
    manifestsRewritten.addAndGet(run.manifestsRewritten());
    orphanFilesRemoved.addAndGet(run.orphanFilesRemoved());
    bytesFreed.addAndGet(run.bytesFreed());
    lastRun = at;
  }

  BackgroundMaintenanceStatus status(boolean running, boolean leaseHeld) {
    return new BackgroundMaintenanceStatus(table, running, leaseHeld, rounds.get(), skipped.get(), failed.get(),
        snapshotsExpired.get(), dataFilesCompacted.get(), deleteFilesRemoved.get(), manifestsRewritten.get(),
        orphanFilesRemoved.get(), bytesFreed.get(), leaseTakeovers.get(), leaseLosses.get(),
        Optional.ofNullable(lastRun), Optional.ofNullable(lastError));
  }
}
