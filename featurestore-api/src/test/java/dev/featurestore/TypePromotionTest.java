package dev.featurestore;

import static dev.featurestore.SchemaEvolution.isValidTypePromotion;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** {@link SchemaEvolution#isValidTypePromotion}: Iceberg's promotions, and nothing else. */
class TypePromotionTest {
  @Test
  void iceberg_promotions_areValid() {
    assertThat(isValidTypePromotion(Types.IntegerType.get(), Types.LongType.get())).isTrue();
    assertThat(isValidTypePromotion(Types.FloatType.get(), Types.DoubleType.get())).isTrue();
    assertThat(isValidTypePromotion(Types.DecimalType.of(9, 2), Types.DecimalType.of(12, 2))).isTrue();
    assertThat(isValidTypePromotion(Types.DecimalType.of(9, 2), Types.DecimalType.of(38, 2))).isTrue();
  }

  @Test
  void sameType_isAValidNoOp_primitiveOrNested() {
    assertThat(isValidTypePromotion(Types.StringType.get(), Types.StringType.get())).isTrue();
    assertThat(isValidTypePromotion(Types.DecimalType.of(9, 2), Types.DecimalType.of(9, 2))).isTrue();
    Types.StructType struct = Types.StructType.of(Types.NestedField.optional(1, "a", Types.IntegerType.get()));
    assertThat(isValidTypePromotion(struct, Types.StructType.of(Types.NestedField.optional(1, "a", Types.IntegerType.get()))))
        .isTrue();
  }

  @Test
  void narrowing_scaleChanges_andCrossFamilyChanges_areInvalid() {
    assertThat(isValidTypePromotion(Types.LongType.get(), Types.IntegerType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.DoubleType.get(), Types.FloatType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.IntegerType.get(), Types.DoubleType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.LongType.get(), Types.DoubleType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.IntegerType.get(), Types.StringType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.StringType.get(), Types.LongType.get())).isFalse();
    assertThat(isValidTypePromotion(Types.DecimalType.of(12, 2), Types.DecimalType.of(9, 2))).isFalse();
    assertThat(isValidTypePromotion(Types.DecimalType.of(9, 2), Types.DecimalType.of(12, 3))).isFalse();
    assertThat(isValidTypePromotion(Types.TimestampType.withoutZone(), Types.TimestampType.withZone())).isFalse();
    assertThat(isValidTypePromotion(Types.FixedType.ofLength(4), Types.FixedType.ofLength(8))).isFalse();
    assertThat(isValidTypePromotion(Types.FixedType.ofLength(16), Types.UUIDType.get())).isFalse();
  }

  @Test
  void nestedTypes_neverPromote() {
    Types.ListType ints = Types.ListType.ofOptional(1, Types.IntegerType.get());
    Types.ListType longs = Types.ListType.ofOptional(1, Types.LongType.get());
    assertThat(isValidTypePromotion(ints, longs)).isFalse(); // element types widen one by one, by name
    assertThat(isValidTypePromotion(Types.IntegerType.get(), ints)).isFalse();
    assertThat(isValidTypePromotion(ints, Types.IntegerType.get())).isFalse();
  }

  @Test
  void nulls_areInvalidArguments() {
    assertThatThrownBy(() -> isValidTypePromotion(null, Types.LongType.get()))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot check type promotion: from is null: null");
    assertThatThrownBy(() -> isValidTypePromotion(Types.LongType.get(), null))
        .isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot check type promotion: to is null: null");
  }
}
