package dev.featurestore.duckdb;

import dev.featurestore.NotFoundException;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.base.NanComparisons;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.UuidBounds;
import dev.featurestore.core.base.VersionResolver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Resolves a {@link TimeTravelQuery}'s version to a snapshot and schema (with core's {@link VersionResolver}),
 * and plans its files with Iceberg.
 * Pruning is evaluated here (partition projection, then column statistics) rather than inside
 * Iceberg's scan, so each kind of pruning is counted, and a filter on a column an old snapshot
 * had but today's schema renamed still prunes by statistics.
 */
final class ScanPlanner {
  private ScanPlanner() {}

  /** A planned scan: the files to read with their deletes, and what planning found. */
  record PlannedScan(TableId tableId, Table table, Snapshot snapshot, Schema schema, List<Types.NestedField> columns,
      Expression filter, List<FileScanTask> tasks, long totalDataFiles, long prunedByPartition,
      long prunedByStats, long planningNanos) {

    long snapshotId() {
      return snapshot == null ? -1 : snapshot.snapshotId();
    }

    List<DeleteFile> deleteFiles() {
      Map<String, DeleteFile> unique = new LinkedHashMap<>();
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          unique.putIfAbsent(delete.location(), delete);
        }
      }
      return List.copyOf(unique.values());
    }

    long dataBytes() {
      return tasks.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
    }
  }

  /**
   * The files of recently planned snapshots, per table (by uuid, so a dropped and recreated table
   * never matches) and snapshot id. A snapshot's files and their delete files never change, so a
   * repeated query at the same snapshot skips reading the manifests; a filter is still evaluated
   * against the cached files on every query. Plans larger than {@code maxTasks} files are not kept.
   * Thread-safe.
   */
  static final class PlanCache {
    private final int maxEntries;
    private final int maxTasks;
    private final LinkedHashMap<String, List<FileScanTask>> entries = new LinkedHashMap<>(16, 0.75f, true);

    PlanCache(int maxEntries, int maxTasks) {
      this.maxEntries = maxEntries;
      this.maxTasks = maxTasks;
    }

    synchronized List<FileScanTask> get(Table table, Snapshot snapshot) {
      String key = key(table, snapshot);
      return key == null ? null : entries.get(key);
    }

    synchronized void put(Table table, Snapshot snapshot, List<FileScanTask> tasks) {
      String key = key(table, snapshot);
      if (key == null || tasks.size() > maxTasks) {
        return;
      }
      entries.put(key, tasks);
      Iterator<String> eldest = entries.keySet().iterator();
      while (entries.size() > maxEntries && eldest.hasNext()) {
        eldest.next();
        eldest.remove();
      }
    }

    /** Null (not cached) for a table that has no uuid. */
    private static String key(Table table, Snapshot snapshot) {
      try {
        return table.uuid() + "/" + snapshot.snapshotId();
      } catch (UnsupportedOperationException e) {
        return null;
      }
    }
  }

  static PlannedScan plan(TimeTravelQuery version, PlanCache cache) {
    long start = System.nanoTime();
    TableId id = version.table();
    Table table = version.unwrap(Table.class);
    table.refresh();
    VersionResolver.Resolved resolved = VersionResolver.resolve(id, table, version.version());
    Snapshot snapshot = resolved.snapshot();
    Schema schema = resolved.schema();
    List<Types.NestedField> columns = project(id, schema, version, snapshot);
    Expression filter = version.filter();
    if (filter != Expressions.alwaysTrue()) {
      try {
        Binder.bind(schema.asStruct(), filter, true);
      } catch (org.apache.iceberg.exceptions.ValidationException e) {
        throw new NotFoundException("Cannot filter table " + id + ": " + e.getMessage(), e);
      }
      // the core query's semantics: IEEE NaN comparisons in planning and in the SQL that checks rows
      filter = NanComparisons.ieee(filter, schema, true);
    }
    // never prune by uuid bounds (signed in Iceberg 1.12, unsigned in Parquet); rows are still checked
    Expression pruning = UuidBounds.pruningFilter(filter, schema, true);
    if (snapshot == null) {
      return new PlannedScan(id, table, null, schema, columns, filter, List.of(), 0, 0, 0, System.nanoTime() - start);
    }
    List<FileScanTask> all = cache.get(table, snapshot);
    if (all == null) {
      List<FileScanTask> planned = new ArrayList<>();
      // scans drop column stats unless asked; pruning needs them (and a cached plan serves any filter)
      org.apache.iceberg.TableScan scan = ScanPlanning.newScan(table, snapshot).includeColumnStats();
      try (CloseableIterable<FileScanTask> files = scan.planFiles()) {
        files.forEach(planned::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      all = List.copyOf(planned);
      cache.put(table, snapshot, all);
    }
    if (filter == Expressions.alwaysTrue()) {
      return new PlannedScan(id, table, snapshot, schema, columns, filter, all, all.size(), 0, 0,
          System.nanoTime() - start);
    }
    Map<Integer, Evaluator> partitionEvaluators = new HashMap<>();
    InclusiveMetricsEvaluator metrics = new InclusiveMetricsEvaluator(schema, pruning, true);
    List<FileScanTask> kept = new ArrayList<>();
    long byPartition = 0;
    long byStats = 0;
    for (FileScanTask task : all) {
      Evaluator partition = partitionEvaluators.computeIfAbsent(task.spec().specId(),
          specId -> partitionEvaluator(table.specs().get(specId), pruning));
      if (partition != null && !partition.eval(task.file().partition())) {
        byPartition++;
      } else if (!metrics.eval(task.file())) {
        byStats++;
      } else {
        kept.add(task);
      }
    }
    return new PlannedScan(id, table, snapshot, schema, columns, filter, List.copyOf(kept), all.size(), byPartition,
        byStats, System.nanoTime() - start);
  }

  /** Null when the spec cannot evaluate the filter (unpartitioned, or the filter names old columns). */
  private static Evaluator partitionEvaluator(PartitionSpec spec, Expression filter) {
    if (spec == null || spec.isUnpartitioned()) {
      return null;
    }
    try {
      Expression projected = Projections.inclusive(spec, true).project(filter);
      return new Evaluator(spec.partitionType(), projected, true);
    } catch (org.apache.iceberg.exceptions.ValidationException | IllegalArgumentException e) {
      return null;
    }
  }

  private static List<Types.NestedField> project(TableId id, Schema schema, TimeTravelQuery version, Snapshot snapshot) {
    if (version.columns().isEmpty()) {
      return schema.columns();
    }
    List<Types.NestedField> fields = new ArrayList<>();
    for (String name : version.columns().get()) {
      Types.NestedField field = schema.asStruct().field(name);
      if (field == null) {
        throw new NotFoundException("Cannot select column of table " + id + ": column does not exist in snapshot "
            + (snapshot == null ? -1 : snapshot.snapshotId()) + ": " + name);
      }
      fields.add(field);
    }
    return List.copyOf(fields);
  }
}
