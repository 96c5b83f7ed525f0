package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.function.Predicate;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The row check orders uuids as unsigned bytes, nested fields included, and leaves the rest to Iceberg. */
class UuidOrderTest {
  static final UUID LOW = UUID.fromString("00000000-0000-0000-0000-000000000001");
  static final UUID HIGH = UUID.fromString("ffffffff-0000-0000-0000-000000000000");
  static final Types.StructType INFO = Types.StructType.of(Types.NestedField.optional(3, "u", Types.UUIDType.get()));
  static final Types.StructType ROW = Types.StructType.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "info", INFO));

  @Test
  void compareUnsigned_ordersTheHighBitLast() {
    assertThat(UuidOrder.compareUnsigned(HIGH, LOW)).isPositive();
    assertThat(HIGH.compareTo(LOW)).isNegative(); // Java's signed order, which Iceberg 1.12's Evaluator uses
    assertThat(UuidOrder.compareUnsigned(UUID.fromString("00000000-0000-0000-8000-000000000000"), LOW)).isPositive();
    assertThat(UuidOrder.compareUnsigned(LOW, LOW)).isZero();
  }

  @Test
  void rowCheck_nestedUuidRange_unsigned_nullDropped_restByIceberg() {
    Predicate<StructLike> check = UuidOrder.rowCheck(ROW, Expressions.or(
        Expressions.greaterThan("info.u", LOW), Expressions.equal("id", 7L)), true);
    assertThat(check.test(row(1L, HIGH))).isTrue();
    assertThat(check.test(row(1L, LOW))).isFalse();
    assertThat(check.test(row(1L, null))).isFalse();
    assertThat(check.test(row(7L, null))).isTrue();
    Predicate<StructLike> negated = UuidOrder.rowCheck(ROW, Expressions.not(Expressions.greaterThan("info.u", LOW)), true);
    assertThat(negated.test(row(1L, HIGH))).isFalse();
    assertThat(negated.test(row(1L, LOW))).isTrue();
    assertThat(negated.test(row(1L, null))).isFalse();
    assertThat(UuidOrder.ordersUuids(ROW, Expressions.equal("info.u", LOW), true)).isFalse();
    assertThat(UuidOrder.ordersUuids(ROW, Expressions.not(Expressions.lessThan("info.u", LOW)), true)).isTrue();
  }

  private static GenericRecord row(long id, UUID u) {
    GenericRecord info = GenericRecord.create(INFO);
    info.setField("u", u);
    GenericRecord row = GenericRecord.create(ROW);
    row.setField("id", id);
    row.setField("info", info);
    return row;
  }
}
