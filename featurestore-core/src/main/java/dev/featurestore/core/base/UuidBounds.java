package dev.featurestore.core.base;

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
 * (the result is weaker, never stronger); rows are still checked against the whole filter. Every
 * reader that prunes (core query, pruning explanation, lookups, the SQL adapter's planner) prunes
 * with this filter, so uuid bounds already in files (other engines, older tables) are never used.
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
    Expression pruning = ExpressionVisitors.visit(Expressions.rewriteNot(filter),
        new PredicateRewrite(schema, caseSensitive) {
          @Override
          <T> Expression rewrite(UnboundPredicate<T> pred, Types.NestedField field) {
            if (field != null && field.type().typeId() == Type.TypeID.UUID) {
              dropped[0] = true;
              return Expressions.alwaysTrue();
            }
            return pred;
          }

          @Override
          <T> Expression rewrite(BoundPredicate<T> pred) {
            if (pred.ref().type().typeId() == Type.TypeID.UUID) {
              dropped[0] = true;
              return Expressions.alwaysTrue();
            }
            return pred;
          }
        });
    return dropped[0] ? pruning : filter;
  }
}
