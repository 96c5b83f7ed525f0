package dev.featurestore.core.query;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiPredicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * A uuid column with values on both sides of {@code 80000000-...} (and of the low half's sign
 * bit), plus a null, for uuid range filters; shared with the DuckDB adapter's tests. The expected
 * rows come from lowercase hex strings, whose order is unsigned byte order (Spark's, DuckDB's).
 */
public final class UuidRanges {
  public static final List<UUID> VALUES = List.of(
      UUID.fromString("00000000-0000-0000-0000-000000000001"),
      UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff"),
      UUID.fromString("80000000-0000-0000-0000-000000000000"),
      UUID.fromString("80000000-0000-0000-0000-000000000001"),
      UUID.fromString("80000000-0000-0000-8000-000000000000"),
      UUID.fromString("ffffffff-0000-0000-0000-000000000000"));
  public static final List<UUID> LITERALS = List.of(
      UUID.fromString("00000000-0000-0000-0000-000000000001"),
      UUID.fromString("80000000-0000-0000-0000-000000000000"),
      UUID.fromString("80000000-0000-0000-7fff-ffffffffffff"),
      UUID.fromString("ffffffff-0000-0000-0000-000000000000"));
  /** The id of the row whose uuid is null. */
  public static final long NULL_ID = VALUES.size();

  private UuidRanges() {}

  /** A filter and which (non-null) uuids it keeps, in unsigned byte order. */
  public record Case(Expression filter, BiPredicate<UUID, UUID> keeps, UUID literal) {
    public boolean keeps(UUID value) {
      return value != null && keeps.test(value, literal);
    }
  }

  /** Table {@code name}: ids 0.. with {@link #VALUES}, then a null; one file per row or all in one; bounds or not. */
  public static FeatureTable create(FeatureStore store, String name, boolean oneFile, boolean bounds) {
    TableDefinition.Builder def = TableDefinition.builder(name, new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "u", Types.UUIDType.get())));
    if (bounds) {
      def.property("write.metadata.metrics.column.u", "full");
    }
    FeatureTable table = store.createTable(def.build());
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < VALUES.size(); i++) {
      rows.add(TestTables.record(table, "id", (long) i, "u", VALUES.get(i)));
    }
    rows.add(TestTables.record(table, "id", NULL_ID, "u", null));
    if (oneFile) {
      TestTables.append(table, rows);
    } else {
      rows.forEach(row -> TestTables.append(table, List.of(row)));
    }
    return table;
  }

  /** Each range operator, and its negation, against each literal. */
  public static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    for (UUID literal : LITERALS) {
      cases.add(new Case(Expressions.lessThan("u", literal), (v, l) -> hex(v, l) < 0, literal));
      cases.add(new Case(Expressions.lessThanOrEqual("u", literal), (v, l) -> hex(v, l) <= 0, literal));
      cases.add(new Case(Expressions.greaterThan("u", literal), (v, l) -> hex(v, l) > 0, literal));
      cases.add(new Case(Expressions.greaterThanOrEqual("u", literal), (v, l) -> hex(v, l) >= 0, literal));
      cases.add(new Case(Expressions.not(Expressions.lessThan("u", literal)), (v, l) -> hex(v, l) >= 0, literal));
      cases.add(new Case(Expressions.not(Expressions.lessThanOrEqual("u", literal)), (v, l) -> hex(v, l) > 0, literal));
      cases.add(new Case(Expressions.not(Expressions.greaterThan("u", literal)), (v, l) -> hex(v, l) <= 0, literal));
      cases.add(new Case(Expressions.not(Expressions.greaterThanOrEqual("u", literal)), (v, l) -> hex(v, l) < 0, literal));
    }
    return cases;
  }

  /** The ids a case keeps (never the null row: SQL null semantics). */
  public static List<Long> expectedIds(Case c) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < VALUES.size(); i++) {
      if (c.keeps(VALUES.get(i))) {
        ids.add((long) i);
      }
    }
    return ids;
  }

  private static int hex(UUID value, UUID literal) {
    return value.toString().compareTo(literal.toString());
  }
}
