package dev.featurestore.core.base;

import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;

/**
 * One uuid order for every reader: unsigned bytes, as the Iceberg spec, Parquet, DuckDB and Spark
 * (lowercase hex strings) order them. Iceberg 1.12's row {@code Evaluator} compares uuids with
 * Java's signed {@code UUID.compareTo} (apache/iceberg#14216), so {@code u > 00000000-...-000001}
 * would miss {@code ffffffff-...}. The row check built here is Iceberg's {@code Evaluator} for
 * everything but the ordering comparisons ({@code <}, {@code <=}, {@code >}, {@code >=}) on a uuid
 * term, which it checks itself, unsigned; a null compares false (SQL). Equality needs no order.
 * NOTs are pushed down first, so a negated comparison flips its operator, never its answer on nulls.
 * Pruning never sees uuid predicates ({@link UuidBounds}), so this is the only uuid order used.
 */
public final class UuidOrder {
  private UuidOrder() {}

  /**
   * A row check of {@code filter} against rows of {@code struct}; a plain {@code Evaluator} when
   * the filter orders no uuid. Not thread-safe when the filter has no uuid ordering (as {@code Evaluator}).
   */
  public static Predicate<StructLike> rowCheck(Types.StructType struct, Expression filter, boolean caseSensitive) {
    Node node = ExpressionVisitors.visit(Expressions.rewriteNot(filter), new Split(struct, caseSensitive));
    return node.check(struct, caseSensitive);
  }

  /**
   * Whether {@code filter} orders a uuid ({@code <}, {@code <=}, {@code >}, {@code >=}, negated or
   * not): then no Iceberg evaluator (rows, residuals of partition values) may answer it.
   */
  public static boolean ordersUuids(Types.StructType struct, Expression filter, boolean caseSensitive) {
    return ExpressionVisitors.visit(Expressions.rewriteNot(filter), new Split(struct, caseSensitive)).check != null;
  }

  /** Unsigned byte order of two uuids (big-endian: the most significant half first). */
  public static int compareUnsigned(UUID left, UUID right) {
    int most = Long.compareUnsigned(left.getMostSignificantBits(), right.getMostSignificantBits());
    return most != 0 ? most : Long.compareUnsigned(left.getLeastSignificantBits(), right.getLeastSignificantBits());
  }

  /** A subtree: either a plain filter Iceberg evaluates (check null) or a check of our own. */
  private record Node(Expression plain, Predicate<StructLike> check) {
    Predicate<StructLike> check(Types.StructType struct, boolean caseSensitive) {
      if (check != null) {
        return check;
      }
      Evaluator evaluator = new Evaluator(struct, plain, caseSensitive);
      return evaluator::eval;
    }
  }

  private static final class Split extends ExpressionVisitors.ExpressionVisitor<Node> {
    private final Types.StructType struct;
    private final boolean caseSensitive;

    Split(Types.StructType struct, boolean caseSensitive) {
      this.struct = struct;
      this.caseSensitive = caseSensitive;
    }

    @Override
    public Node alwaysTrue() {
      return new Node(Expressions.alwaysTrue(), null);
    }

    @Override
    public Node alwaysFalse() {
      return new Node(Expressions.alwaysFalse(), null);
    }

    @Override
    public Node not(Node result) {
      return result.check == null ? new Node(Expressions.not(result.plain), null)
          : new Node(null, result.check.negate());
    }

    @Override
    public Node and(Node left, Node right) {
      if (left.check == null && right.check == null) {
        return new Node(Expressions.and(left.plain, right.plain), null);
      }
      return new Node(null, left.check(struct, caseSensitive).and(right.check(struct, caseSensitive)));
    }

    @Override
    public Node or(Node left, Node right) {
      if (left.check == null && right.check == null) {
        return new Node(Expressions.or(left.plain, right.plain), null);
      }
      return new Node(null, left.check(struct, caseSensitive).or(right.check(struct, caseSensitive)));
    }

    @Override
    public <T> Node predicate(UnboundPredicate<T> pred) {
      return switch (pred.op()) {
        case LT, LT_EQ, GT, GT_EQ -> {
          Expression bound = Binder.bind(struct, pred, caseSensitive);
          if (bound instanceof BoundPredicate<?> b && b.isLiteralPredicate()
              && b.term().type().typeId() == Type.TypeID.UUID) {
            yield new Node(null, unsigned(b));
          }
          yield new Node(pred, null);
        }
        default -> new Node(pred, null);
      };
    }

    @Override
    public <T> Node predicate(BoundPredicate<T> pred) {
      throw new IllegalStateException("Cannot check rows: filter is already bound: " + pred);
    }
  }

  private static <T> Predicate<StructLike> unsigned(BoundPredicate<T> pred) {
    UUID literal = uuid(pred.asLiteralPredicate().literal().value());
    Expression.Operation op = pred.op();
    return row -> {
      Object value = pred.term().eval(row);
      if (value == null) {
        return false;
      }
      int cmp = compareUnsigned(uuid(value), literal);
      return switch (op) {
        case LT -> cmp < 0;
        case LT_EQ -> cmp <= 0;
        case GT -> cmp > 0;
        case GT_EQ -> cmp >= 0;
        default -> throw new IllegalStateException("Cannot check rows: not an ordering comparison: " + pred);
      };
    };
  }

  private static UUID uuid(Object value) {
    return value instanceof ByteBuffer bytes ? UUIDUtil.convert(bytes) : (UUID) value;
  }
}
