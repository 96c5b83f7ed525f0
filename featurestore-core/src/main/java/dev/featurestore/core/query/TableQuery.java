package dev.featurestore.core.query;

import static java.util.Objects.requireNonNull;

import dev.featurestore.ExportResult;
import dev.featurestore.NotFoundException;
import dev.featurestore.QueryResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ReadVersion;
import dev.featurestore.RowDiff;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.VersionResolver;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Entry point of time-travel reads: {@link #of(TableHandle)} returns a query of the current
 * snapshot with every column, to refine.
 *
 * <pre>{@code
 * TimeTravelQuery base = TableQuery.of(handle).select("entity_id", "feature_a");
 * try (QueryResult rows = base.asOfSnapshot(42L).filter(Expressions.greaterThan("feature_a", 0.5)).execute()) {
 *   rows.forEach(row -> System.out.println(row.toMap()));
 * }
 * }</pre>
 *
 * <p>Queries are immutable: every refinement returns a new query and leaves the receiver as it
 * was, so one query may be shared between threads and refined or executed from each. The version
 * (snapshot and its schema) is resolved when the query is executed, counted, exported or asked for
 * its schema, after refreshing the table. A {@link QueryResult} is not thread-safe: iterate it from
 * one thread.
 *
 * <p>Schemas: the current version and branches read with the table's current schema (a schema
 * change is visible at once, as in Iceberg); a snapshot id, a time or a tag reads with the schema
 * that snapshot was written with, so renamed and dropped columns read as they were then.
 *
 * <p>Rows are exact: files are pruned by partition values and column statistics, then every row
 * is checked against the whole filter, and positional and equality deletes are applied.
 */
public final class TableQuery {
  private TableQuery() {}

  /** A query of the table's current snapshot, with every column and no filter. */
  public static TimeTravelQuery of(TableHandle handle) {
    return new Query(handle, ReadVersion.current(), null, Expressions.alwaysTrue(), true);
  }

  /** What a query reads: the projected columns, and the read schema (projection plus filter columns). */
  record Plan(VersionResolver.Resolved resolved, Schema projected, Schema readSchema, Expression filter, boolean caseSensitive) {}

  private static final class Query implements TimeTravelQuery {
    private final TableHandle handle;
    private final ReadVersion version; // resolved lazily, so a query can outlive many commits
    private final List<String> columns; // null: every column of the version's schema
    private final Expression filter;
    private final boolean caseSensitive;

    private Query(TableHandle handle, ReadVersion version, List<String> columns, Expression filter, boolean caseSensitive) {
      this.handle = requireNonNull(handle, "handle is null");
      this.version = version;
      this.columns = columns == null ? null : List.copyOf(columns);
      this.filter = filter;
      this.caseSensitive = caseSensitive;
    }

    @Override
    public TimeTravelQuery current() {
      return new Query(handle, ReadVersion.current(), columns, filter, caseSensitive);
    }

    @Override
    public TimeTravelQuery asOfSnapshot(long snapshotId) {
      return new Query(handle, ReadVersion.snapshot(snapshotId), columns, filter, caseSensitive);
    }

    @Override
    public TimeTravelQuery asOf(Instant time) {
      return new Query(handle, ReadVersion.asOf(time), columns, filter, caseSensitive);
    }

    @Override
    public TimeTravelQuery atRef(String ref) {
      return new Query(handle, ReadVersion.ref(ref), columns, filter, caseSensitive);
    }

    @Override
    public TimeTravelQuery select(String... selected) {
      InvalidArgumentException.requireNonNull(selected, "select columns", "columns");
      for (String column : selected) {
        InvalidArgumentException.requireNonNull(column, "select columns", "column");
      }
      if (selected.length == 0) {
        throw new InvalidArgumentException("Cannot select columns: no column given");
      }
      return new Query(handle, version, Arrays.asList(selected), filter, caseSensitive);
    }

    @Override
    public TimeTravelQuery filter(Expression more) {
      InvalidArgumentException.requireNonNull(more, "filter table", "filter");
      Expression combined = filter == Expressions.alwaysTrue() ? more : Expressions.and(filter, more);
      return new Query(handle, version, columns, combined, caseSensitive);
    }

    @Override
    public TableId table() {
      return handle.id();
    }

    @Override
    public ReadVersion version() {
      return version;
    }

    @Override
    public Optional<List<String>> columns() {
      return Optional.ofNullable(columns);
    }

    @Override
    public Expression filter() {
      return filter;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
      InvalidArgumentException.requireNonNull(type, "unwrap query", "type");
      if (type.isInstance(handle.table())) {
        return type.cast(handle.table());
      }
      throw new InvalidArgumentException("Cannot unwrap query of table " + handle.id() + ": no object of type: "
          + type.getName());
    }

    @Override
    public Schema schema() {
      return plan().projected();
    }

    @Override
    public QueryResult execute() {
      return ScanExecution.execute(handle, plan());
    }

    @Override
    public long count() {
      return ScanExecution.count(handle, plan());
    }

    @Override
    public RowDiff diff(ReadVersion from) {
      InvalidArgumentException.requireNonNull(from, "diff table", "from");
      Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
      VersionResolver.Resolved newer = VersionResolver.resolve(handle.id(), table, version);
      VersionResolver.Resolved older = VersionResolver.resolve(handle.id(), table, from);
      // both sides read through the newer schema (schema ids only grow)
      Schema schema = older.schema().schemaId() > newer.schema().schemaId() ? older.schema() : newer.schema();
      VersionResolver.Resolved to = new VersionResolver.Resolved(table, newer.snapshot(), schema);
      Schema projected = project(to);
      Schema readSchema = withFilterColumns(to, projected);
      Plan toPlan = new Plan(to, projected, readSchema, filter, caseSensitive);
      Plan fromPlan = new Plan(new VersionResolver.Resolved(table, older.snapshot(), schema), projected, readSchema,
          filter, caseSensitive);
      return handle.translating("diff table " + handle.id(), () -> RowDiffScan.plan(handle, fromPlan, toPlan));
    }

    @Override
    public ExportResult exportParquet(Path file) {
      InvalidArgumentException.requireNonNull(file, "export query", "file");
      return recorded(ParquetExport.export(handle, plan(), file));
    }

    @Override
    public ExportResult exportToBucket(String name) {
      InvalidArgumentException.requireNonNull(name, "export query to bucket", "name");
      return recorded(ParquetExport.exportToBucket(handle, plan(), name));
    }

    private ExportResult recorded(ExportResult result) {
      handle.record("export", result.lineage().snapshot().orElse(null), java.util.Map.of("location", result.location(),
          "rows", result.rows(), "bytes", result.bytes(), "filter", result.lineage().filter(),
          "columns", result.lineage().columns()));
      return result;
    }

    private Plan plan() {
      Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
      VersionResolver.Resolved resolved = VersionResolver.resolve(handle.id(), table, version);
      Schema projected = project(resolved);
      Schema readSchema = withFilterColumns(resolved, projected);
      return new Plan(resolved, projected, readSchema, filter, caseSensitive);
    }

    /** The selected columns in the order asked for (nested names keep their top-level column). */
    private Schema project(VersionResolver.Resolved resolved) {
      Schema schema = resolved.schema();
      if (columns == null) {
        return schema;
      }
      // top-level field id -> the selected names under it, in order of first mention
      Map<Integer, List<String>> byRoot = new LinkedHashMap<>();
      for (String column : columns) {
        Types.NestedField field = caseSensitive ? schema.findField(column) : schema.caseInsensitiveFindField(column);
        if (field == null) {
          throw new NotFoundException("Cannot select column: column does not exist in snapshot "
              + resolved.snapshotId() + ": " + column);
        }
        Types.NestedField root = rootOf(schema, column);
        byRoot.computeIfAbsent(root.fieldId(), id -> new ArrayList<>()).add(column);
      }
      List<Types.NestedField> fields = new ArrayList<>();
      for (List<String> names : byRoot.values()) {
        Schema selected = caseSensitive ? schema.select(names) : schema.caseInsensitiveSelect(names);
        fields.add(selected.columns().get(0));
      }
      return new Schema(fields);
    }

    private Types.NestedField rootOf(Schema schema, String column) {
      int dot = column.indexOf('.');
      while (dot > 0) {
        String prefix = column.substring(0, dot);
        Types.NestedField field = caseSensitive ? schema.findField(prefix) : schema.caseInsensitiveFindField(prefix);
        if (field != null && schema.asStruct().field(field.fieldId()) != null) {
          return field;
        }
        dot = column.indexOf('.', dot + 1);
      }
      return caseSensitive ? schema.findField(column) : schema.caseInsensitiveFindField(column);
    }

    /** Appends the top-level columns the filter needs but the projection lacks. */
    private Schema withFilterColumns(VersionResolver.Resolved resolved, Schema projected) {
      if (filter == Expressions.alwaysTrue()) {
        return projected;
      }
      Set<Integer> needed = handle.translating("filter table " + handle.id(), () ->
          Binder.boundReferences(resolved.schema().asStruct(), Collections.singletonList(filter), caseSensitive));
      Set<Integer> present = TypeUtil.getProjectedIds(projected);
      List<Integer> missing = needed.stream().filter(id -> !present.contains(id)).toList();
      if (missing.isEmpty()) {
        return projected;
      }
      List<Types.NestedField> fields = new ArrayList<>(projected.columns());
      Set<Integer> topLevel = new java.util.HashSet<>();
      projected.columns().forEach(f -> topLevel.add(f.fieldId()));
      for (Types.NestedField extra : TypeUtil.select(resolved.schema(), Set.copyOf(missing)).columns()) {
        if (topLevel.add(extra.fieldId())) {
          fields.add(extra);
        } else {
          throw new InvalidArgumentException("Cannot filter table " + handle.id()
              + ": filter uses a nested field of a partially selected column; select the whole column: "
              + extra.name());
        }
      }
      return new Schema(fields);
    }

    @Override
    public String toString() {
      return "TimeTravelQuery{table=" + handle.id() + ", version=" + version
          + ", columns=" + (columns == null ? "*" : columns) + ", filter=" + filter + "}";
    }
  }
}
