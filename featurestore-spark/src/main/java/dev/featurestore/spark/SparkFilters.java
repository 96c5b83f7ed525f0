package dev.featurestore.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.isnan;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.NanComparisons;
import dev.featurestore.core.base.SqlNullSemantics;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.spark.sql.Column;

/**
 * A query's Iceberg filter as a Spark column, with the library's row semantics: first the same
 * rewrites every reader of the library applies ({@link NanComparisons#ieee}: an ordering comparison
 * with NaN is false; {@link SqlNullSemantics}: a comparison with null drops the row), then each
 * predicate as the Spark comparison of the column with its literal in Spark's Java type
 * (timestamps with a zone as {@link Instant}, without as {@link LocalDateTime}, dates as
 * {@link LocalDate}, uuids as strings, decimals as {@link BigDecimal}).
 */
final class SparkFilters {
  private SparkFilters() {}

  /** The Spark filter for {@code filter} over {@code schema}; null when it keeps every row. */
  static Column column(Expression filter, Schema schema) {
    if (filter == null || filter == Expressions.alwaysTrue()) {
      return null;
    }
    Expression rows = SqlNullSemantics.rewrite(NanComparisons.ieee(filter, schema, true));
    Expression bound = Binder.bind(schema.asStruct(), rows, true);
    return ExpressionVisitors.visit(bound, new ToColumn(schema));
  }

  private static final class ToColumn extends ExpressionVisitors.ExpressionVisitor<Column> {
    private final Schema schema;

    ToColumn(Schema schema) {
      this.schema = schema;
    }

    @Override
    public Column alwaysTrue() {
      return lit(true);
    }

    @Override
    public Column alwaysFalse() {
      return lit(false);
    }

    @Override
    public Column not(Column child) {
      return org.apache.spark.sql.functions.not(child);
    }

    @Override
    public Column and(Column left, Column right) {
      return left.and(right);
    }

    @Override
    public Column or(Column left, Column right) {
      return left.or(right);
    }

    @Override
    public <T> Column predicate(UnboundPredicate<T> pred) {
      throw new InvalidArgumentException("Cannot read with filter: predicate is not bound: " + pred);
    }

    @Override
    public <T> Column predicate(BoundPredicate<T> pred) {
      if (!(pred.term() instanceof BoundReference<?> ref)) {
        throw new InvalidArgumentException("Cannot read with filter on Spark: only column predicates are supported: " + pred);
      }
      Column column = column(ref);
      Type type = ref.type();
      if (pred.isUnaryPredicate()) {
        return switch (pred.op()) {
          case IS_NULL -> column.isNull();
          case NOT_NULL -> column.isNotNull();
          case IS_NAN -> isnan(column);
          case NOT_NAN -> not(isnan(column));
          default -> unsupported(pred);
        };
      }
      if (pred.isLiteralPredicate()) {
        Object value = value(pred.asLiteralPredicate().literal().value(), type);
        return switch (pred.op()) {
          case LT -> column.lt(value);
          case LT_EQ -> column.leq(value);
          case GT -> column.gt(value);
          case GT_EQ -> column.geq(value);
          case EQ -> column.equalTo(value);
          case NOT_EQ -> column.notEqual(value);
          case STARTS_WITH -> column.startsWith((String) value);
          case NOT_STARTS_WITH -> not(column.startsWith((String) value));
          default -> unsupported(pred);
        };
      }
      if (pred.isSetPredicate()) {
        Set<T> literals = pred.asSetPredicate().literalSet();
        List<Object> values = new ArrayList<>();
        for (T literal : literals) {
          values.add(value(literal, type));
        }
        Column in = column.isin(values.toArray());
        return switch (pred.op()) {
          case IN -> in;
          case NOT_IN -> not(in);
          default -> unsupported(pred);
        };
      }
      return unsupported(pred);
    }

    private Column column(BoundReference<?> ref) {
      return col(SparkReads.quoted(schema.findColumnName(ref.fieldId())));
    }

    private static <T> Column unsupported(BoundPredicate<T> pred) {
      throw new InvalidArgumentException("Cannot read with filter on Spark: unsupported predicate: " + pred);
    }
  }

  /** An Iceberg literal's value (its internal representation) as the Java value Spark compares with. */
  static Object value(Object value, Type type) {
    return switch (type.typeId()) {
      case DATE -> LocalDate.ofEpochDay((Integer) value);
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? Instant.EPOCH.plusNanos(Math.multiplyExact((Long) value, 1000L))
          : LocalDateTime.ofEpochSecond(Math.floorDiv((Long) value, 1_000_000L),
              (int) Math.floorMod((Long) value, 1_000_000L) * 1000, ZoneOffset.UTC);
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC()
          ? Instant.EPOCH.plusNanos((Long) value)
          : LocalDateTime.ofEpochSecond(Math.floorDiv((Long) value, 1_000_000_000L),
              (int) Math.floorMod((Long) value, 1_000_000_000L), ZoneOffset.UTC);
      case STRING, UUID -> value.toString();
      case FIXED, BINARY -> ByteBuffers.toByteArray((ByteBuffer) value);
      default -> value;
    };
  }
}
