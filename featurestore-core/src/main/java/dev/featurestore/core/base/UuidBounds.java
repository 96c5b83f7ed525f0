package dev.featurestore.core.query;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg 1.12 compares uuid bounds with Java's signed {@code UUID.compareTo} while Parquet writes
 * them as unsigned bytes (apache/iceberg#14216), so file and row-group pruning on a uuid predicate
 * skips files that hold matching rows. This drops uuid predicates from the filter used for pruning
 * (the result is weaker, never stronger); rows are still checked against the whole filter.
 */
public final class UuidBounds {
  private UuidBounds() {}

  /**
   * The filter without its uuid predicates, for planning and row-group pruning only; the same
   * instance when it has none.
   */
  public static Expression pruningFilter(Expression filter, Schema schema, boolean caseSensitive) {
    if (filter == Expressions.alwaysTrue()) {
      return filter;
    }
    boolean[] dropped = {false};
    // NOT pushed down to the predicates first: dropping a predicate under NOT would strengthen it
    Expression pruning = ExpressionVisitors.visit(Expressions.rewriteNot(filter), new ExpressionVisitors.ExpressionVisitor<>() {
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
      public <T> Expression predicate(BoundPredicate<T> pred) {
        return pred.ref().type().typeId() == Type.TypeID.UUID ? drop() : pred;
      }

      @Override
      public <T> Expression predicate(UnboundPredicate<T> pred) {
        String name = pred.ref().name();
        Types.NestedField field = caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
        return field != null && field.type().typeId() == Type.TypeID.UUID ? drop() : pred;
      }

      private Expression drop() {
        dropped[0] = true;
        return Expressions.alwaysTrue();
      }
    });
    return dropped[0] ? pruning : filter;
  }
}
