package dev.featurestore.core.query;

import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;

/**
 * Gives row filters SQL's null semantics. Iceberg's row {@code Evaluator} compares a null as
 * smaller than any value, so {@code score <= 55} would keep rows whose score is null; in SQL (and
 * in the DuckDB adapter) such a comparison is unknown and the row is dropped. After pushing NOTs
 * down to the predicates, every comparison on a term is guarded with {@code term IS NOT NULL};
 * null and NaN tests are left as they are.
 */
final class SqlNullSemantics {
  private SqlNullSemantics() {}

  static Expression rewrite(Expression filter) {
    return ExpressionVisitors.visit(Expressions.rewriteNot(filter), new Guard());
  }

  private static final class Guard extends ExpressionVisitors.ExpressionVisitor<Expression> {
    @Override
    public Expression alwaysTrue() {
      return Expressions.alwaysTrue();
    }

    @Override
    public Expression alwaysFalse() {
      return Expressions.alwaysFalse();
    }

    @Override
    public Expression not(Expression result) {
      return Expressions.not(result);
    }

    @Override
    public Expression and(Expression left, Expression right) {
      return Expressions.and(left, right);
    }

    @Override
    public Expression or(Expression left, Expression right) {
      return Expressions.or(left, right);
    }

    @Override
    public <T> Expression predicate(UnboundPredicate<T> pred) {
      return switch (pred.op()) {
        case IS_NULL, NOT_NULL, IS_NAN, NOT_NAN -> pred;
        default -> Expressions.and(Expressions.notNull(pred.term()), pred);
      };
    }

    @Override
    public <T> Expression predicate(BoundPredicate<T> pred) {
      return pred;
    }
  }
}
