package dev.featurestore.core.base;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Types;

/**
 * Gives row filters SQL's null semantics. Iceberg's row {@code Evaluator} compares a null as
 * smaller than any value, so {@code score <= 55} would keep rows whose score is null; in SQL (and
 * in the DuckDB adapter) such a comparison is unknown and the row is dropped. After pushing NOTs
 * down to the predicates, every comparison on a term is guarded with {@code term IS NOT NULL};
 * null and NaN tests are left as they are.
 */
public final class SqlNullSemantics {
  private SqlNullSemantics() {}

  /** {@code filter} with every comparison guarded by {@code IS NOT NULL} on its term. */
  public static Expression rewrite(Expression filter) {
    return ExpressionVisitors.visit(Expressions.rewriteNot(filter), new Guard());
  }

  private static final class Guard extends PredicateRewrite {
    Guard() {
      super(null, true); // the guard needs no column: it applies to every comparison
    }

    @Override
    <T> Expression rewrite(UnboundPredicate<T> pred, Types.NestedField field) {
      return switch (pred.op()) {
        case IS_NULL, NOT_NULL, IS_NAN, NOT_NAN -> pred;
        default -> Expressions.and(Expressions.notNull(pred.term()), pred);
      };
    }
  }
}
