package dev.featurestore.core.schema;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.ValueConverters;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;

/**
 * A column default from a user value: converted as an ingested value is ({@link ValueConverters},
 * the one conversion), then as the literal Iceberg stores in the schema ({@code initial-default},
 * {@code write-default}).
 */
final class ColumnDefaults {
  private ColumnDefaults() {}

  /** @throws InvalidArgumentException if the value does not convert to {@code type} */
  static Literal<?> literal(Type.PrimitiveType type, Object value, String what) {
    Object generic;
    try {
      generic = ValueConverters.forType(type).convert(value);
    } catch (ValueConverters.BadValue e) {
      throw new InvalidArgumentException("Cannot " + what + ": default does not convert to "
          + ValueConverters.typeName(type) + ": " + value);
    }
    Literal<?> literal = switch (type.typeId()) {
      case DATE -> Literal.of((int) ((LocalDate) generic).toEpochDay()).to(type);
      case TIME -> Literal.of(((LocalTime) generic).toNanoOfDay() / 1_000).to(type);
      case TIMESTAMP -> Literal.of(micros(generic)).to(type);
      case TIMESTAMP_NANO -> Literal.of(micros(generic) * 1_000 + nanosOfMicro(generic)).to(type);
      case FIXED -> Literal.of(generic instanceof ByteBuffer b ? b : ByteBuffer.wrap((byte[]) generic)).to(type);
      default -> Expressions.lit(generic).to(type);
    };
    if (literal == null) {
      throw new InvalidArgumentException("Cannot " + what + ": default does not convert to "
          + ValueConverters.typeName(type) + ": " + value);
    }
    return literal;
  }

  private static long nanosOfMicro(Object timestamp) {
    int nanos = timestamp instanceof OffsetDateTime t ? t.getNano() : ((LocalDateTime) timestamp).getNano();
    return nanos % 1_000;
  }

  private static long micros(Object timestamp) {
    if (timestamp instanceof OffsetDateTime t) {
      return ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), t);
    }
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), (LocalDateTime) timestamp);
  }
}
