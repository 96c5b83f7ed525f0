package dev.featurestore.core.query;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.RowMatches;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.UuidOrder;
import dev.featurestore.core.base.VersionResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.TypeUtil;

/**
 * Entry point of deletes by filter: the rows of a snapshot a filter selects, found exactly as
 * {@code query().filter(...)} finds them: the same planning ({@link ScanExecution#planFiles}:
 * partition and column-statistics pruning, IEEE NaN comparisons, no uuid bounds) and the same row
 * check (SQL nulls, uuids unsigned), with each row's position. A file whose every row matches by
 * its partition alone and that has no deletes is taken whole without being read.
 *
 * <pre>{@code
 * RowMatches.Found found = FilterRows.find(handle, table, table.currentSnapshot(), filter, true);
 * }</pre>
 *
 * Thread-safe (no state).
 */
public final class FilterRows {
  private FilterRows() {}

  /**
   * Checks that {@code filter} binds to the table's schema.
   *
   * @throws InvalidArgumentException naming the problem (an unknown column, a literal of the wrong type)
   */
  public static void check(TableHandle handle, Table table, Expression filter) {
    try {
      Binder.bind(table.schema().asStruct(), filter, true);
    } catch (org.apache.iceberg.exceptions.ValidationException | IllegalArgumentException e) {
      throw new InvalidArgumentException("Cannot delete rows of table " + handle.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The rows of {@code snapshot} matching {@code filter}, read with the table's current schema.
   *
   * @param applyDeletes false to match what the files hold, rows already deleted included
   */
  public static RowMatches.Found find(TableHandle handle, Table table, Snapshot snapshot, Expression filter,
      boolean applyDeletes) {
    check(handle, table, filter);
    Schema schema = table.schema();
    Set<Integer> ids = Binder.boundReferences(schema.asStruct(), List.of(filter), true);
    Schema needed = ids.isEmpty() ? new Schema() : TypeUtil.select(schema, ids);
    TableQuery.Plan plan = new TableQuery.Plan(new VersionResolver.Resolved(table, snapshot, schema), needed, needed,
        filter, true);
    ScanExecution.Planned planned = ScanExecution.planFiles(handle, plan);
    Expression rowFilter = filter == Expressions.alwaysTrue() ? filter : ScanExecution.rowFilter(plan);
    List<RowMatches.FileMatch> files = new ArrayList<>();
    long scanned = 0;
    for (FileScanTask task : planned.tasks()) {
      if (applyDeletes && task.deletes().isEmpty() && planned.filterUsedInPlanning()
          && ScanExecution.wholeFileMatches(task, rowFilter, true)) {
        files.add(RowMatches.FileMatch.whole(task));
        continue;
      }
      scanned++;
      RowMatches.FileMatch match = RowMatches.scan(table, schema, task, needed,
          struct -> UuidOrder.rowCheck(struct, rowFilter, true), applyDeletes);
      if (match != null) {
        files.add(match);
      }
    }
    return new RowMatches.Found(files, scanned);
  }
}
