package dev.featurestore.core.query;

import dev.featurestore.InvalidArgumentException;

import dev.featurestore.FileDecision;
import dev.featurestore.NotFoundException;
import dev.featurestore.PruningReport;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.core.base.NanComparisons;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.UuidBounds;
import dev.featurestore.core.base.UuidOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Entry point of pruning explanations: for each live data file of a snapshot, whether a filter
 * keeps it, decided as Iceberg's scan planning decides (manifest partition summaries, the filter
 * projected inclusively onto the file's own spec, then the file's column statistics through
 * {@link InclusiveMetricsEvaluator}), and why.
 *
 * <pre>{@code
 * PruningReport report = Pruning.explain(handle, Expressions.equal("entity_id", 42L), OptionalLong.empty());
 * report.dropped().forEach(f -> System.out.println(f.location() + ": " + f.reason()));
 * }</pre>
 *
 * <p>Files of older specs are judged by their own spec, so a table whose spec evolved is explained
 * correctly. Thread-safe (no state).
 */
public final class Pruning {
  private Pruning() {}

  /** Explains {@code filter} against the current snapshot, or {@code snapshotId} if given. */
  public static PruningReport explain(TableHandle handle, Expression filter, java.util.OptionalLong snapshotId) {
    InvalidArgumentException.requireNonNull(filter, "explain pruning", "filter");
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    Snapshot snapshot;
    if (snapshotId.isPresent()) {
      snapshot = table.snapshot(snapshotId.getAsLong());
      if (snapshot == null) {
        throw new SnapshotNotFoundException("Cannot explain pruning of table " + handle.id()
            + ": unknown snapshot id: " + snapshotId.getAsLong());
      }
    } else {
      snapshot = table.currentSnapshot();
    }
    if (snapshot == null) {
      return new PruningReport(-1, filter.toString(), List.of());
    }
    // bind once against the table schema so a bad column fails with a clear message
    handle.translating("explain pruning of table " + handle.id(), () ->
        Binder.bind(table.schema().asStruct(), filter, true));
    return handle.translating("explain pruning of table " + handle.id(), () -> explain(table, snapshot, filter, null));
  }

  /**
   * Explains {@code filter} for these data files of the current snapshot only, in the order given,
   * with the same decisions as {@link #explain(TableHandle, Expression, java.util.OptionalLong)}.
   *
   * @throws NotFoundException if a location is not a live data file of the current snapshot
   */
  public static PruningReport explain(TableHandle handle, Expression filter, List<String> dataFiles) {
    String action = "explain pruning of data files";
    InvalidArgumentException.requireNonNull(filter, action, "filter");
    InvalidArgumentException.requireNonNull(dataFiles, action, "dataFiles");
    dataFiles.forEach(f -> InvalidArgumentException.requireNonNull(f, action, "data file"));
    InvalidArgumentException.check(!dataFiles.isEmpty(), "Cannot %s: no data file given: %s", action, dataFiles);
    Set<String> wanted = new LinkedHashSet<>(dataFiles);
    InvalidArgumentException.check(wanted.size() == dataFiles.size(), "Cannot %s: a data file is listed twice: %s",
        action, dataFiles);
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      throw new NotFoundException("Cannot " + action + ": not a live data file of table " + handle.id()
          + " (no snapshot): " + dataFiles.get(0));
    }
    handle.translating("explain pruning of table " + handle.id(), () ->
        Binder.bind(table.schema().asStruct(), filter, true));
    PruningReport all = handle.translating("explain pruning of table " + handle.id(),
        () -> explain(table, snapshot, filter, wanted));
    Map<String, FileDecision> byLocation = new HashMap<>();
    all.files().forEach(f -> byLocation.put(f.location(), f));
    List<FileDecision> ordered = new ArrayList<>();
    for (String file : dataFiles) {
      FileDecision decision = byLocation.get(file);
      if (decision == null) {
        throw new NotFoundException("Cannot " + action + ": not a live data file of snapshot "
            + snapshot.snapshotId() + ": " + file);
      }
      ordered.add(decision);
    }
    return new PruningReport(all.snapshotId(), all.filter(), ordered);
  }

  /** Every live data file's decision, or only those in {@code only} when it is not null. */
  private static PruningReport explain(Table table, Snapshot snapshot, Expression userFilter, Set<String> only) {
    Schema schema = table.schema(); // as Iceberg's planning: manifests are read with the table's specs and schema
    // as queries plan: IEEE NaN comparisons, and no pruning by uuid bounds
    Expression rows = NanComparisons.ieee(userFilter, schema, true);
    Expression filter = UuidBounds.pruningFilter(rows, schema, true);
    Map<Integer, PartitionSpec> specs = table.specs();
    InclusiveMetricsEvaluator metrics = new InclusiveMetricsEvaluator(schema, filter, true);
    List<Expression> conjuncts = conjuncts(filter);
    // Iceberg's residuals order uuid partition values signed: rows are then checked against the whole filter
    boolean residuals = !UuidOrder.ordersUuids(schema.asStruct(), rows, true);
    Map<Integer, SpecEval> bySpec = new HashMap<>();
    List<FileDecision> decisions = new ArrayList<>();
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      PartitionSpec spec = specs.get(manifest.partitionSpecId());
      SpecEval eval = bySpec.computeIfAbsent(spec.specId(), id -> new SpecEval(spec, filter, rows, residuals));
      boolean manifestMatches = eval.manifest.eval(manifest);
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), specs)) {
        for (DataFile file : reader) {
          if (only != null && !only.contains(file.location())) {
            continue;
          }
          decisions.add(decide(file, spec, eval, manifestMatches, metrics, conjuncts, schema));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new PruningReport(snapshot.snapshotId(), userFilter.toString(), decisions);
  }

  /** Evaluators of one spec. */
  private static final class SpecEval {
    final ManifestEvaluator manifest;
    final Evaluator partition;
    final Expression projected;
    final ResidualEvaluator residuals;
    final Expression filter;

    /**
     * {@code pruning} decides, residuals are of {@code rows} (the filter rows are checked against),
     * or with {@code residuals} false (Iceberg's cannot answer the filter) {@code rows} whole.
     */
    SpecEval(PartitionSpec spec, Expression pruning, Expression rows, boolean residuals) {
      this.filter = rows;
      this.manifest = ManifestEvaluator.forRowFilter(pruning, spec, true);
      this.projected = Projections.inclusive(spec, true).project(pruning);
      this.partition = new Evaluator(spec.partitionType(), projected, true);
      this.residuals = residuals ? ResidualEvaluator.of(spec, rows, true) : ResidualEvaluator.unpartitioned(rows);
    }
  }

  private static FileDecision decide(DataFile file, PartitionSpec spec, SpecEval eval, boolean manifestMatches,
      InclusiveMetricsEvaluator metrics, List<Expression> conjuncts, Schema schema) {
    String path = spec.isUnpartitioned() ? "" : spec.partitionToPath(file.partition());
    String where = spec.isUnpartitioned() ? "unpartitioned" : "partition " + path + " (spec " + spec.specId() + ")";
    if (!manifestMatches) {
      return decision(file, spec, path, FileDecision.Outcome.DROPPED_BY_PARTITION,
          "manifest partition ranges exclude " + eval.projected + "; " + where);
    }
    if (!eval.partition.eval(file.partition())) {
      return decision(file, spec, path, FileDecision.Outcome.DROPPED_BY_PARTITION,
          where + " does not match " + eval.projected);
    }
    if (!metrics.eval(file)) {
      return decision(file, spec, path, FileDecision.Outcome.DROPPED_BY_COLUMN_STATS, statsReason(file, conjuncts, schema));
    }
    Expression residual;
    try {
      residual = eval.residuals.residualFor(file.partition());
    } catch (NullPointerException e) {
      // Iceberg 1.12's ResidualEvaluator fails on startsWith over a null partition value; every row is checked then
      residual = eval.filter;
    }
    String reason = residual.op() == Expression.Operation.TRUE
        ? where + " matches the whole filter: every row qualifies"
        : where + " and column stats may match; rows checked against " + residual;
    return decision(file, spec, path, FileDecision.Outcome.KEPT, reason);
  }

  private static FileDecision decision(DataFile file, PartitionSpec spec, String path, FileDecision.Outcome outcome,
      String reason) {
    return new FileDecision(file.location(), spec.specId(), path, file.recordCount(), file.fileSizeInBytes(), outcome, reason);
  }

  /** Names the first conjunct whose column bounds exclude the file, with those bounds. */
  private static String statsReason(DataFile file, List<Expression> conjuncts, Schema schema) {
    for (Expression conjunct : conjuncts) {
      if (!new InclusiveMetricsEvaluator(schema, conjunct, true).eval(file)) {
        StringBuilder reason = new StringBuilder("column stats exclude ").append(conjunct);
        for (Integer id : Binder.boundReferences(schema.asStruct(), List.of(conjunct), true)) {
          Types.NestedField field = schema.findField(id);
          reason.append("; ").append(field.name()).append(" in [")
              .append(bound(field, file.lowerBounds())).append(", ").append(bound(field, file.upperBounds())).append(']');
          Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
          if (nulls != null) {
            reason.append(", nulls ").append(nulls);
          }
        }
        return reason.toString();
      }
    }
    return "column stats exclude the filter";
  }

  private static String bound(Types.NestedField field, Map<Integer, ByteBuffer> bounds) {
    ByteBuffer buffer = bounds == null ? null : bounds.get(field.fieldId());
    if (buffer == null || !field.type().isPrimitiveType()) {
      return "?";
    }
    Object value = Conversions.fromByteBuffer(field.type(), buffer);
    @SuppressWarnings({"unchecked", "rawtypes"})
    String human = ((org.apache.iceberg.transforms.Transform) org.apache.iceberg.transforms.Transforms.identity())
        .toHumanString(field.type(), value);
    return human;
  }

  private static List<Expression> conjuncts(Expression filter) {
    List<Expression> out = new ArrayList<>();
    collect(Expressions.rewriteNot(filter), out);
    return out;
  }

  private static void collect(Expression expr, List<Expression> out) {
    if (expr instanceof And and) {
      collect(and.left(), out);
      collect(and.right(), out);
    } else {
      out.add(expr);
    }
  }
}
