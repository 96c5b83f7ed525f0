package dev.featurestore.core.base;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Types;

/**
 * Rebuilds an unbound filter predicate by predicate, keeping its and/or/not structure; what a
 * predicate becomes is the subclass's. Shared by the filter rewrites of the floor.
 */
abstract class PredicateRewrite extends ExpressionVisitors.ExpressionVisitor<Expression> {
  private final Schema schema;
  private final boolean caseSensitive;

  /** A rewrite that looks each predicate's column up in {@code schema} (null: no lookup, field is null). */
  PredicateRewrite(Schema schema, boolean caseSensitive) {
    this.schema = schema;
    this.caseSensitive = caseSensitive;
  }

  /** What {@code pred} becomes; {@code field} is the column it names (null for an unknown name). */
  abstract <T> Expression rewrite(UnboundPredicate<T> pred, Types.NestedField field);

  /** What an already bound predicate becomes: itself unless a rewrite says otherwise. */
  <T> Expression rewrite(BoundPredicate<T> pred) {
    return pred;
  }

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
    return rewrite(pred);
  }

  @Override
  public <T> Expression predicate(UnboundPredicate<T> pred) {
    String name = pred.ref().name();
    Types.NestedField field = schema == null ? null
        : caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
    return rewrite(pred, field);
  }
}
