package dev.featurestore.core.base;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One NaN semantics for every reader: IEEE 754, a comparison with NaN is false. Iceberg's row
 * evaluator orders NaN above every number ({@code Double.compare}), as DuckDB does, while its
 * metrics evaluators prune NaN-only files from {@code <}, {@code <=}, {@code >}, {@code >=}: left
 * alone, {@code x > 0.5} would answer by file layout. Each ordering comparison on a float or
 * double column becomes {@code cmp AND notNaN(col)}, before NOTs are pushed down, so
 * {@code not(x > 0.5)} holds for NaN (as in Java). Equality, {@code in} and their negations already
 * agree with IEEE (the literal is never NaN: Iceberg refuses NaN literals). Every reader (core
 * query, pruning explanation, lookups, SQL relations) plans, prunes and filters rows with the
 * rewritten filter; Iceberg's evaluators and DuckDB's {@code isnan} answer {@code notNaN} exactly.
 */
public final class NanComparisons {
  private NanComparisons() {}

  /** {@code filter} with IEEE NaN comparisons, against {@code schema}; the same instance when it compares no float. */
  public static Expression ieee(Expression filter, Schema schema, boolean caseSensitive) {
    if (filter == Expressions.alwaysTrue() || filter == Expressions.alwaysFalse()) {
      return filter;
    }
    boolean[] changed = {false};
    Expression rewritten = ExpressionVisitors.visit(filter, new PredicateRewrite(schema, caseSensitive) {
      @Override
      <T> Expression rewrite(UnboundPredicate<T> pred, Types.NestedField field) {
        if (field == null || !isFloatingPoint(field.type())) {
          return pred;
        }
        return switch (pred.op()) {
          case LT, LT_EQ, GT, GT_EQ -> {
            changed[0] = true;
            yield Expressions.and(pred, Expressions.notNaN(pred.ref().name()));
          }
          default -> pred;
        };
      }
    });
    return changed[0] ? rewritten : filter;
  }

  private static boolean isFloatingPoint(Type type) {
    return type.typeId() == Type.TypeID.DOUBLE || type.typeId() == Type.TypeID.FLOAT;
  }
}
