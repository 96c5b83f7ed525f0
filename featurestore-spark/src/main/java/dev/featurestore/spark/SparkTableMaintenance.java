package dev.featurestore.spark;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.Compaction;
import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.MaintenanceListener;
import dev.featurestore.MaintenancePlan;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceProgress;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceStep;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.TableId;
import dev.featurestore.TableMaintenance;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.OperationLog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteManifests;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * A table's maintenance run by Spark, in the library's vocabulary ({@link TableMaintenance}):
 * {@link #compact()} rewrites data files with their deletes applied, {@link #expireSnapshots()},
 * {@link #removeOrphanFiles()} and {@link #rewriteManifests()} as Iceberg's {@code SparkActions},
 * spreading the reading and writing over the cluster. {@link #plan(MaintenancePolicy)} decides
 * with the library's thresholds (the store reads the table's metadata) and runs each step here.
 *
 * <pre>{@code
 * SparkTableMaintenance maintenance = spark.maintenance(TableId.of("features", "events"));
 * MaintenanceReport report = maintenance.plan(MaintenancePolicy.defaults()).execute();
 * }</pre>
 *
 * <p>Every operation holds the table's maintenance lease while it runs (the lease the library's
 * background maintenance takes; see {@code MaintenanceLease}): if another process maintains the
 * table, it fails with {@code InvalidStateException} ({@code Cannot acquire lease
 * maintenance:<table>: held by <owner> until <time>: ...}) and changes nothing. The same safety
 * rules as the library's: nothing a ref holds is expired, files younger than the orphan safety
 * window are kept, and so are the version hint files the store writes. Commits go through the
 * store's catalog; a conflict with a writer is a {@link dev.featurestore.CommitConflictException},
 * an unknown outcome a {@link dev.featurestore.CommitStateUnknownException} (never retried).
 * {@link #background(MaintenancePolicy)} is not available on Spark: schedule
 * {@code plan(policy).execute()} as a job. Operation objects are single-use; one thread at a time.
 */
public final class SparkTableMaintenance implements TableMaintenance {
  private final SparkSession spark;
  private final FeatureStore store;
  private final TableId id;
  private final String tableName;
  private final MaintenanceLease lease;
  private final OperationLog operations;

  SparkTableMaintenance(SparkSession spark, FeatureStore store, TableId id, String tableName) {
    this.spark = spark;
    this.store = store;
    this.id = id;
    this.tableName = tableName;
    this.lease = new MaintenanceLease(store.config(), id, spark.sparkContext().applicationId());
    this.operations = operationLog(store);
  }

  /** The store's own operations log (one per store), or one over the same catalog database. */
  private static OperationLog operationLog(FeatureStore store) {
    try {
      return store.unwrap(OperationLog.class);
    } catch (InvalidArgumentException notTheLibrarysStore) {
      return OperationLog.forStore(store.config());
    }
  }

  /**
   * Records a maintenance run in the store's operations log, as the library's own maintenance
   * does (same operation names and details), with {@code "engine": "spark"} and the application id.
   */
  void record(String operation, Long snapshotId, Map<String, ?> details) {
    Map<String, Object> all = new LinkedHashMap<>(details);
    all.put("engine", "spark");
    all.put("spark_application", spark.sparkContext().applicationId());
    operations.record(operation, id, snapshotId, all);
  }

  /** The table as Spark's catalog loads it (commits through it write the store's version hints). */
  Table table() {
    try {
      return Spark3Util.loadIcebergTable(spark, tableName);
    } catch (org.apache.spark.sql.catalyst.parser.ParseException
        | org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new dev.featurestore.TableNotFoundException(id);
    }
  }

  SparkActions actions() {
    return SparkActions.get(spark);
  }

  TableId id() {
    return id;
  }

  FeatureStore store() {
    return store;
  }

  /** Runs {@code action} under the maintenance lease, translating Iceberg's failures. */
  <T> T run(String what, Supplier<T> action) {
    return lease.run(MaintenancePolicy.defaults().leaseDuration(), () -> {
      try {
        return action.get();
      } catch (RuntimeException e) {
        throw Errors.translate(e, what + " of table " + id + " on Spark");
      }
    });
  }

  @Override
  public SnapshotExpiry expireSnapshots() {
    return new SparkSnapshotExpiry(this);
  }

  @Override
  public OrphanFileRemoval removeOrphanFiles() {
    return new SparkOrphanFileRemoval(this);
  }

  @Override
  public Compaction compact() {
    return new SparkCompaction(this);
  }

  @Override
  public RewriteManifestsResult rewriteManifests() {
    return run("rewrite manifests", () -> {
      Table table = table();
      Snapshot before = table.currentSnapshot();
      if (before == null) {
        return new RewriteManifestsResult(OptionalLong.empty(), 0, 0);
      }
      long manifestsBefore = before.dataManifests(table.io()).size();
      RewriteManifests.Result result = actions().rewriteManifests(table).execute();
      table.refresh();
      Snapshot after = table.currentSnapshot();
      boolean changed = after.snapshotId() != before.snapshotId();
      long manifestsAfter = changed ? after.dataManifests(table.io()).size() : manifestsBefore;
      if (!result.addedManifests().iterator().hasNext()) {
        return new RewriteManifestsResult(OptionalLong.empty(), manifestsBefore, manifestsBefore);
      }
      record("rewrite_manifests", changed ? after.snapshotId() : null,
          Map.of("manifests_before", manifestsBefore, "manifests_after", manifestsAfter));
      return new RewriteManifestsResult(changed ? OptionalLong.of(after.snapshotId()) : OptionalLong.empty(),
          manifestsBefore, manifestsAfter);
    });
  }

  /**
   * The steps the library's plan decides for this table and policy (its thresholds, read from the
   * table's metadata by the store), each run here on Spark, all under the maintenance lease
   * (renewed before each step: a lease lost stops the plan before its next step).
   */
  @Override
  public MaintenancePlan plan(MaintenancePolicy policy) {
    InvalidArgumentException.requireNonNull(policy, "plan maintenance", "policy");
    return new LeasedPlan(store.table(id).maintenance().plan(policy, this), policy.leaseDuration());
  }

  @Override
  public MaintenancePlan plan(MaintenancePolicy policy, TableMaintenance executor) {
    return store.table(id).maintenance().plan(policy, executor);
  }

  /**
   * Not on Spark: a Spark session is no place for a daemon thread; schedule
   * {@code plan(policy).execute()} as a job, or run background maintenance in a process of the
   * library ({@code table.maintenance().background(policy)}): both take the same lease.
   *
   * @throws InvalidStateException always
   */
  @Override
  public BackgroundMaintenance background(MaintenancePolicy policy) {
    throw new InvalidStateException("Cannot start background maintenance on Spark: schedule plan(policy).execute() "
        + "as a job, or run table.maintenance().background(policy) in the library: " + id);
  }

  @Override
  public String toString() {
    return "SparkTableMaintenance{" + id + ", lease owner " + lease.owner() + "}";
  }

  /** The library's plan, run holding the lease and renewing it before every step. */
  private final class LeasedPlan implements MaintenancePlan {
    private final MaintenancePlan plan;
    private final Duration leaseDuration;
    private MaintenanceListener listener = progress -> {};

    LeasedPlan(MaintenancePlan plan, Duration leaseDuration) {
      this.plan = plan;
      this.leaseDuration = leaseDuration;
    }

    @Override
    public List<MaintenanceStep> steps() {
      return plan.steps();
    }

    @Override
    public MaintenancePlan listener(MaintenanceListener listener) {
      InvalidArgumentException.requireNonNull(listener, "run maintenance plan", "listener");
      this.listener = listener;
      return this;
    }

    @Override
    public MaintenanceReport execute() {
      return lease.run(leaseDuration, () -> plan.listener(progress -> {
        if (progress.status() == MaintenanceProgress.Status.STARTED) {
          lease.check();
        }
        listener.onProgress(progress);
      }).execute());
    }
  }
}
