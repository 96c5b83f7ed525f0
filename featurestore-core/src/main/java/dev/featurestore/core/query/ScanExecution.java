package dev.featurestore.core.query;

import dev.featurestore.InvalidStateException;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.ScanStats;
import dev.featurestore.core.base.NanComparisons;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.SqlNullSemantics;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.UuidBounds;
import dev.featurestore.core.base.UuidOrder;
import dev.featurestore.core.base.VersionResolver;
import dev.featurestore.core.query.TableQuery.Plan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Plans a query with Iceberg (snapshot, projection, filter to pruned file tasks with their delete
 * files) and reads the planned tasks, so planning happens once: Parquet files with or without
 * position deletes with {@link ParquetTasks} (Iceberg's generic value readers, deletes applied by
 * position with less work per file and row), anything else (equality deletes, other formats,
 * encrypted files) with Iceberg's generic readers and delete filter. Like Iceberg's own {@code
 * GenericReader}, but deletes are resolved against the snapshot's schema (not the current one),
 * and every row is checked against the whole filter, so rows are exact even when planning could
 * not use the filter.
 */
final class ScanExecution {
  private ScanExecution() {}

  /** Planned file tasks and what planning found. */
  record Planned(List<FileScanTask> tasks, boolean filterUsedInPlanning, long totalDataFiles,
      long deleteFiles, long plannedBytes, long planningNanos) {}

  static Planned planFiles(TableHandle handle, Plan plan) {
    long start = System.nanoTime();
    VersionResolver.Resolved resolved = plan.resolved();
    if (resolved.snapshot() == null) {
      return new Planned(List.of(), true, 0, 0, 0, System.nanoTime() - start);
    }
    Table table = resolved.table();
    List<FileScanTask> tasks;
    boolean filterUsed = true;
    try {
      Expression filter = ieee(plan);
      Expression pruning = UuidBounds.pruningFilter(filter, resolved.schema(), plan.caseSensitive());
      // a weakened filter cannot answer from metadata: rows are checked one by one
      filterUsed = pruning == filter;
      tasks = planFiles(table, resolved.snapshotId(), plan.readSchema(), pruning, plan.caseSensitive());
    } catch (org.apache.iceberg.exceptions.ValidationException | IllegalArgumentException e) {
      if (plan.filter() == Expressions.alwaysTrue()) {
        throw handleError(handle, e);
      }
      // Planning binds partition filters with today's specs; a filter on a column an old snapshot
      // had but the current schema renamed or dropped cannot bind there. Plan unpruned; rows are
      // still filtered exactly.
      tasks = planFiles(table, resolved.snapshotId(), plan.readSchema(), Expressions.alwaysTrue(), plan.caseSensitive());
      filterUsed = false;
    }
    Set<String> deleteFiles = new HashSet<>();
    long bytes = 0;
    for (FileScanTask task : tasks) {
      bytes += task.file().fileSizeInBytes();
      for (DeleteFile delete : task.deletes()) {
        deleteFiles.add(delete.location());
      }
    }
    Map<String, String> summary = resolved.snapshot().summary();
    long total = tasks.size();
    if (summary != null && summary.containsKey(SnapshotSummary.TOTAL_DATA_FILES_PROP)) {
      total = Math.max(total, Long.parseLong(summary.get(SnapshotSummary.TOTAL_DATA_FILES_PROP)));
    }
    return new Planned(List.copyOf(tasks), filterUsed, total, deleteFiles.size(), bytes, System.nanoTime() - start);
  }

  /** The plan's filter with IEEE NaN comparisons (what planning prunes with, before uuid predicates are dropped). */
  private static Expression ieee(Plan plan) {
    return NanComparisons.ieee(plan.filter(), plan.resolved().schema(), plan.caseSensitive());
  }

  /** What each row is checked against: IEEE NaN comparisons and SQL nulls (uuids ordered by {@link UuidOrder}). */
  static Expression rowFilter(Plan plan) {
    return SqlNullSemantics.rewrite(ieee(plan));
  }

  private static RuntimeException handleError(TableHandle handle, RuntimeException e) {
    return dev.featurestore.core.base.Errors.translate(e, "plan scan of table " + handle.id());
  }

  private static List<FileScanTask> planFiles(Table table, long snapshotId, Schema readSchema, Expression filter,
      boolean caseSensitive) {
    TableScan scan = ScanPlanning.newScan(table, snapshotId)
        .caseSensitive(caseSensitive)
        .project(readSchema)
        .filter(filter);
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = scan.planFiles()) {
      files.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  static QueryResult execute(TableHandle handle, Plan plan) {
    Planned planned = handle.translating("plan scan of table " + handle.id(), () -> planFiles(handle, plan));
    return new ScanResult(handle, plan, planned, read(plan, planned));
  }

  static long count(TableHandle handle, Plan plan) {
    Planned planned = handle.translating("plan scan of table " + handle.id(), () -> planFiles(handle, plan));
    boolean fromMetadata = planned.filterUsedInPlanning();
    Expression rowFilter = plan.filter() == Expressions.alwaysTrue() ? plan.filter() : rowFilter(plan);
    for (FileScanTask task : planned.tasks()) {
      if (!task.deletes().isEmpty() || task.residual() != Expressions.alwaysTrue()
          || !wholeFileMatches(task, rowFilter, plan.caseSensitive())) {
        fromMetadata = false;
        break;
      }
    }
    if (fromMetadata) {
      long rows = 0;
      for (FileScanTask task : planned.tasks()) {
        rows += task.file().recordCount();
      }
      return rows;
    }
    try (QueryResult result = new ScanResult(handle, plan, planned, read(plan, planned))) {
      long rows = 0;
      for (Iterator<Row> it = result.iterator(); it.hasNext(); it.next()) {
        rows++;
      }
      return rows;
    }
  }

  /**
   * Whether every row of the task's file matches by its partition alone under the row semantics
   * (planning's residual treats a null partition value as matching {@code x != 1}; a row check does not).
   */
  static boolean wholeFileMatches(FileScanTask task, Expression rows, boolean caseSensitive) {
    if (rows == Expressions.alwaysTrue()) {
      return true;
    }
    try {
      return ResidualEvaluator.of(task.spec(), rows, caseSensitive).residualFor(task.file().partition())
          == Expressions.alwaysTrue();
    } catch (NullPointerException e) {
      return false; // Iceberg 1.12's ResidualEvaluator fails on startsWith over a null partition value
    }
  }

  /** Lazily opens each task in turn; nothing is read until iteration. */
  private static CloseableIterable<Record> read(Plan plan, Planned planned) {
    return read(plan, planned.tasks());
  }

  /** Lazily reads these tasks of the plan, deletes applied and rows checked against the plan's filter. */
  static CloseableIterable<Record> read(Plan plan, List<FileScanTask> tasks) {
    if (tasks.isEmpty()) {
      return CloseableIterable.empty();
    }
    // Parquet files with or without position deletes: the library's reader; others: Iceberg's generic reader
    ParquetTasks parquet = new ParquetTasks(plan.resolved().table().io(), plan.readSchema(), plan.caseSensitive(), tasks);
    CloseableIterable<Record> records = CloseableIterable.concat(Iterables.transform(tasks,
        task -> ParquetTasks.applies(task) ? parquet.open(task, () -> open(plan, task)) : open(plan, task)));
    if (plan.filter() == Expressions.alwaysTrue()) {
      return records;
    }
    Schema readSchema = plan.readSchema();
    // uuids ordered as unsigned bytes (as DuckDB), not as Iceberg's Evaluator orders them
    Predicate<StructLike> check = UuidOrder.rowCheck(readSchema.asStruct(), rowFilter(plan), plan.caseSensitive());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(readSchema.asStruct());
    // the wrapper is reused, so a result is single-threaded (as documented)
    return CloseableIterable.filter(records, record -> check.test(wrapper.wrap(record)));
  }

  private static CloseableIterable<Record> open(Plan plan, FileScanTask task) {
    Table table = plan.resolved().table();
    GenericDeleteFilter deletes =
        new GenericDeleteFilter(table.io(), task, plan.resolved().schema(), plan.readSchema());
    Schema required = deletes.requiredSchema();
    InputFile input = table.io().newInputFile(task.file());
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    ReadBuilder<Record, Object> builder = FormatModelRegistry.readBuilder(task.file().format(), Record.class, input);
    CloseableIterable<Record> records = builder
        .project(required)
        .idToConstant(constants)
        .split(task.start(), task.length())
        .caseSensitive(plan.caseSensitive())
        .filter(task.residual())
        .build();
    return deletes.filter(records);
  }

  /** A streamed result; single-use and single-threaded. */
  static final class ScanResult implements QueryResult {
    private final TableHandle handle;
    private final Plan plan;
    private final Planned planned;
    private final CloseableIterable<Record> records;
    private final RecordRow.Columns columns;
    private CloseableIterator<Record> iterator;
    private long rows = 0;
    private long executionNanos = 0;
    private boolean closed = false;

    ScanResult(TableHandle handle, Plan plan, Planned planned, CloseableIterable<Record> records) {
      this.handle = handle;
      this.plan = plan;
      this.planned = planned;
      this.records = records;
      this.columns = new RecordRow.Columns(plan.projected());
    }

    @Override
    public Schema schema() {
      return plan.projected();
    }

    @Override
    public long snapshotId() {
      return plan.resolved().snapshotId();
    }

    @Override
    public ScanStats scanStats() {
      long dataFiles = planned.tasks().size();
      return new ScanStats(
          snapshotId(),
          planned.totalDataFiles(),
          dataFiles,
          planned.deleteFiles(),
          planned.totalDataFiles() - dataFiles,
          planned.plannedBytes(),
          rows,
          Duration.ofNanos(planned.planningNanos()),
          Duration.ofNanos(executionNanos));
    }

    @Override
    public Iterator<Row> iterator() {
      if (closed) {
        throw new InvalidStateException("Cannot iterate query result: result is closed");
      }
      if (iterator != null) {
        throw new InvalidStateException("Cannot iterate query result: already iterated (a result is single-use)");
      }
      long start = System.nanoTime();
      iterator = handle.translating("read table " + handle.id(), records::iterator);
      executionNanos += System.nanoTime() - start;
      // one clock read before and after each row fetched, and the fetch in hasNext (next() returns
      // what hasNext fetched): per row, two clock reads and no lambda (they were a tenth of a scan)
      return new Iterator<>() {
        private Record next;

        @Override
        public boolean hasNext() {
          if (closed) {
            return false;
          }
          if (next != null) {
            return true;
          }
          long start = System.nanoTime();
          try {
            if (iterator.hasNext()) {
              next = iterator.next();
            }
          } catch (RuntimeException e) {
            throw dev.featurestore.core.base.Errors.translate(e, "read table " + handle.id());
          } finally {
            executionNanos += System.nanoTime() - start;
          }
          return next != null;
        }

        @Override
        public Row next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          Record record = next;
          next = null;
          rows++;
          return new RecordRow(record, columns);
        }
      };
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (iterator != null) {
          iterator.close();
        }
        records.close();
      } catch (IOException e) {
        throw new dev.featurestore.StorageException(
            "Cannot close query result of table " + handle.id() + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String toString() {
      return "QueryResult{table=" + handle.id() + ", snapshot=" + snapshotId() + ", rows=" + rows + "}";
    }
  }
}
