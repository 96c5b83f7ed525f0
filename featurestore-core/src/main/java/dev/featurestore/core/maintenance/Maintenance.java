package dev.featurestore.core.maintenance;

import dev.featurestore.InvalidArgumentException;
import static java.util.Objects.requireNonNull;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.Compaction;
import dev.featurestore.MaintenancePlan;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.TableMaintenance;
import dev.featurestore.core.base.TableHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Table maintenance without Spark, on top of Iceberg's core operations ({@code ExpireSnapshots},
 * {@code RewriteFiles}, {@code RewriteManifests}) and the store's FileIO.
 *
 * <pre>{@code
 * TableMaintenance maintenance = new Maintenance(handle);
 * maintenance.compact().execute();
 * maintenance.expireSnapshots().retainLast(10).execute();
 * maintenance.removeOrphanFiles().execute();
 * }</pre>
 *
 * <p>Thread safety: safe for concurrent use; it holds no state besides the table handle.
 */
public final class Maintenance implements TableMaintenance {
  private final TableHandle handle;
  private final Set<BackgroundMaintenance> running;

  /** Maintenance of {@code handle}'s table; background maintenance is stopped by its handle only. */
  public Maintenance(TableHandle handle) {
    this(handle, ConcurrentHashMap.newKeySet());
  }

  /**
   * Maintenance of {@code handle}'s table; background maintenance started here stays in
   * {@code running} until closed, so the store can close what is still running when it closes.
   */
  public Maintenance(TableHandle handle, Set<BackgroundMaintenance> running) {
    this.handle = requireNonNull(handle, "handle is null");
    this.running = requireNonNull(running, "running is null");
  }

  @Override
  public SnapshotExpiry expireSnapshots() {
    return new ExpireOperation(handle);
  }

  @Override
  public OrphanFileRemoval removeOrphanFiles() {
    return new OrphanFilesOperation(handle);
  }

  @Override
  public Compaction compact() {
    return new CompactionOperation(handle);
  }

  @Override
  public RewriteManifestsResult rewriteManifests() {
    return ManifestRewrite.run(handle);
  }

  @Override
  public MaintenancePlan plan(MaintenancePolicy policy) {
    InvalidArgumentException.requireNonNull(policy, "plan maintenance", "policy");
    return PlannedMaintenance.plan(this, handle, policy);
  }

  @Override
  public MaintenancePlan plan(MaintenancePolicy policy, TableMaintenance executor) {
    InvalidArgumentException.requireNonNull(policy, "plan maintenance", "policy");
    InvalidArgumentException.requireNonNull(executor, "plan maintenance", "executor");
    return PlannedMaintenance.plan(executor, handle, policy);
  }

  @Override
  public BackgroundMaintenance background(MaintenancePolicy policy) {
    InvalidArgumentException.requireNonNull(policy, "start background maintenance", "policy");
    return BackgroundMaintainer.start(this, handle, policy, running);
  }

  @Override
  public String toString() {
    return "Maintenance{" + handle.id() + "}";
  }
}
