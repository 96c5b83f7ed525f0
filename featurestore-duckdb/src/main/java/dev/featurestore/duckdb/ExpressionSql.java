package dev.featurestore.duckdb;

import dev.featurestore.InvalidStateException;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * An Iceberg row filter as a DuckDB boolean expression, so rows are filtered exactly after
 * pruning, with the core query's semantics: SQL nulls (a comparison with null, or its negation,
 * drops the row; {@code notNaN} keeps nulls, as Iceberg's) and, once {@code NanComparisons} has
 * guarded the ordering comparisons, IEEE NaN; uuids compare as DuckDB {@code UUID}s (unsigned
 * bytes, as the core's {@code UuidOrder}), never as strings. The filter is bound to the version's schema; columns
 * are named by field id.
 */
final class ExpressionSql {
  private ExpressionSql() {}

  static String toSql(Expression filter, Types.StructType struct, boolean caseSensitive, IntFunction<String> column) {
    if (filter == Expressions.alwaysTrue()) {
      return "TRUE";
    }
    Expression bound = Binder.bind(struct, Expressions.rewriteNot(filter), caseSensitive);
    return ExpressionVisitors.visit(bound, new Visitor(column));
  }

  private static final class Visitor extends ExpressionVisitors.ExpressionVisitor<String> {
    private final IntFunction<String> column;

    Visitor(IntFunction<String> column) {
      this.column = column;
    }

    @Override
    public String alwaysTrue() {
      return "TRUE";
    }

    @Override
    public String alwaysFalse() {
      return "FALSE";
    }

    @Override
    public String not(String result) {
      return "(NOT " + result + ")";
    }

    @Override
    public String and(String left, String right) {
      return "(" + left + " AND " + right + ")";
    }

    @Override
    public String or(String left, String right) {
      return "(" + left + " OR " + right + ")";
    }

    @Override
    public <T> String predicate(BoundPredicate<T> pred) {
      if (!(pred.term() instanceof BoundReference<T> ref)) {
        throw new UnsupportedOperationException("Cannot filter with SQL: transforms in filters are not supported: " + pred);
      }
      String col = column.apply(ref.fieldId());
      Type type = ref.type();
      return switch (pred.op()) {
        case IS_NULL -> "(" + col + " IS NULL)";
        case NOT_NULL -> "(" + col + " IS NOT NULL)";
        case IS_NAN -> "(" + col + " IS NOT NULL AND isnan(" + col + "))";
        case NOT_NAN -> "(" + col + " IS NULL OR NOT isnan(" + col + "))";
        case LT -> compare(col, "<", type, pred);
        case LT_EQ -> compare(col, "<=", type, pred);
        case GT -> compare(col, ">", type, pred);
        case GT_EQ -> compare(col, ">=", type, pred);
        case EQ -> compare(col, "=", type, pred);
        // SQL nulls, as the core query's row check (SqlNullSemantics): a null compared, negated or not, drops the row
        case NOT_EQ -> compare(col, "<>", type, pred);
        case STARTS_WITH -> "starts_with(" + col + ", " + literal(type, pred) + ")";
        case NOT_STARTS_WITH -> "(NOT starts_with(" + col + ", " + literal(type, pred) + "))";
        case IN -> "(" + col + " IN (" + set(type, pred) + "))";
        case NOT_IN -> "(" + col + " NOT IN (" + set(type, pred) + "))";
        default -> throw new UnsupportedOperationException("Cannot filter with SQL: unsupported predicate: " + pred);
      };
    }

    @Override
    public <T> String predicate(UnboundPredicate<T> pred) {
      throw new InvalidStateException("Cannot filter with SQL: predicate is not bound: " + pred);
    }

    private static <T> String compare(String col, String op, Type type, BoundPredicate<T> pred) {
      return "(" + col + " " + op + " " + literal(type, pred) + ")";
    }

    private static <T> String literal(Type type, BoundPredicate<T> pred) {
      return DuckTypes.literal(type, pred.asLiteralPredicate().literal().value());
    }

    private static <T> String set(Type type, BoundPredicate<T> pred) {
      return pred.asSetPredicate().literalSet().stream()
          .map(value -> DuckTypes.literal(type, value))
          .collect(Collectors.joining(", "));
    }
  }
}
