package dev.featurestore.core.query;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Test helper: one set of double/float values with NaN, infinities and a null, written in several
 * file layouts, and the filters every reader must answer alike, with the IEEE 754 answer (a
 * comparison with NaN is false, so {@code not(x > 0.5)} holds for NaN; a comparison with null is
 * unknown, so neither it nor its negation holds).
 */
public final class NanLayouts {
  /** x by id (index + 1); y is the same as a float. Null at id 8. */
  static final Double[] VALUES = {Double.NaN, Double.NaN, Double.NaN, 1.0, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, 0.5, null};

  /** A layout: the ids written to each data file, one append per file; or identity-partitioned by x. */
  public record Layout(String name, List<List<Long>> files, boolean partitionedByX) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** A filter and the IEEE answer for one value (null for a null value). */
  public record Case(Expression filter, ValueTest expected) {
    @Override
    public String toString() {
      return filter.toString();
    }
  }

  /** Whether a row with value {@code v} (null for a null) matches. */
  public interface ValueTest {
    boolean test(Double v);
  }

  private NanLayouts() {}

  public static List<Layout> layouts() {
    return List.of(
        new Layout("issue: [NaN,NaN] [NaN,1.0] [+Inf] [-Inf] [0.5,null]",
            List.of(List.of(1L, 2L), List.of(3L, 4L), List.of(5L), List.of(6L), List.of(7L, 8L)), false),
        new Layout("one file", List.of(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L)), false),
        new Layout("one file per row", List.of(List.of(1L), List.of(2L), List.of(3L), List.of(4L), List.of(5L),
            List.of(6L), List.of(7L), List.of(8L)), false),
        new Layout("NaN apart: [NaN,NaN,NaN] [numbers,null]",
            List.of(List.of(1L, 2L, 3L), List.of(4L, 5L, 6L, 7L, 8L)), false),
        new Layout("NaN with each: [NaN,-Inf] [NaN,+Inf] [NaN,1.0,0.5,null]",
            List.of(List.of(1L, 6L), List.of(2L, 5L), List.of(3L, 4L, 7L, 8L)), false),
        new Layout("identity partitions on x", List.of(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L)), true));
  }

  public static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "x", Types.DoubleType.get()),
        Types.NestedField.optional(3, "y", Types.FloatType.get()));
  }

  /** Creates {@code t.nan_<n>} with the layout's files. */
  public static FeatureTable create(FeatureStore store, Layout layout, int n) {
    TableDefinition.Builder def = TableDefinition.builder("t.nan_" + n, schema());
    if (layout.partitionedByX()) {
      def.partitionBy(s -> PartitionSpec.builderFor(s).identity("x").build());
    }
    FeatureTable table = store.createTable(def.build());
    for (List<Long> file : layout.files()) {
      List<Record> records = new ArrayList<>();
      for (long id : file) {
        Double x = VALUES[(int) id - 1];
        records.add(TestTables.record(table, "id", id, "x", x, "y", x == null ? null : (float) x.doubleValue()));
      }
      TestTables.append(table, records);
    }
    return table;
  }

  /** Every comparison operator on both columns against several literals, their negations, and the NaN tests. */
  public static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    for (double lit : new double[] {0.5, 1.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY}) {
      for (String column : List.of("x", "y")) {
        Object literal = column.equals("x") ? (Object) lit : (Object) (float) lit;
        List<Object[]> compare = List.of(
            new Object[] {Expressions.lessThan(column, literal), (DoublePredicate) v -> v < lit},
            new Object[] {Expressions.lessThanOrEqual(column, literal), (DoublePredicate) v -> v <= lit},
            new Object[] {Expressions.greaterThan(column, literal), (DoublePredicate) v -> v > lit},
            new Object[] {Expressions.greaterThanOrEqual(column, literal), (DoublePredicate) v -> v >= lit},
            new Object[] {Expressions.equal(column, literal), (DoublePredicate) v -> v == lit},
            new Object[] {Expressions.notEqual(column, literal), (DoublePredicate) v -> v != lit});
        for (Object[] c : compare) {
          Expression filter = (Expression) c[0];
          DoublePredicate ieee = (DoublePredicate) c[1];
          cases.add(new Case(filter, v -> v != null && ieee.test(v)));
          cases.add(new Case(Expressions.not(filter), v -> v != null && !ieee.test(v)));
        }
      }
    }
    for (String column : List.of("x", "y")) {
      Object half = column.equals("x") ? (Object) 0.5 : (Object) 0.5f;
      Object one = column.equals("x") ? (Object) 1.0 : (Object) 1.0f;
      cases.add(new Case(Expressions.isNaN(column), v -> v != null && v.isNaN()));
      cases.add(new Case(Expressions.notNaN(column), v -> v == null || !v.isNaN()));
      cases.add(new Case(Expressions.not(Expressions.isNaN(column)), v -> v == null || !v.isNaN()));
      cases.add(new Case(Expressions.in(column, half, one), v -> v != null && (v == 0.5 || v == 1.0)));
      cases.add(new Case(Expressions.notIn(column, half, one), v -> v != null && v != 0.5 && v != 1.0));
      cases.add(new Case(Expressions.or(Expressions.isNaN(column), Expressions.greaterThan(column, one)),
          v -> v != null && (v.isNaN() || v > 1.0)));
    }
    return cases;
  }

  /** The ids the IEEE answer holds, ascending. */
  public static List<Long> expected(Case c) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < VALUES.length; i++) {
      if (c.expected().test(VALUES[i])) {
        ids.add((long) i + 1);
      }
    }
    return ids;
  }
}
