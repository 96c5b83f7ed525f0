package dev.featurestore.core.query;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.relocated.com.google.common.hash.HashFunction;
import org.apache.iceberg.relocated.com.google.common.hash.Hasher;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;

/**
 * A 128-bit hash of a row's values in Iceberg's generic Java types: equal rows hash equal, and two
 * different rows collide with probability about 2^-128, so a diff can cancel rows that appear on
 * both sides by hash without keeping the rows. Every value is tagged with its kind and framed with
 * its length, so {@code ("ab", "c")} and {@code ("a", "bc")} differ.
 */
record RowHash(long high, long low) {
  private static final HashFunction MURMUR = Hashing.murmur3_128();

  /** The hash of the first {@code columns} values of {@code row}. */
  static RowHash of(StructLike row, int columns) {
    Hasher hasher = MURMUR.newHasher();
    for (int i = 0; i < columns; i++) {
      put(hasher, row.get(i, Object.class));
    }
    ByteBuffer bytes = ByteBuffer.wrap(hasher.hash().asBytes());
    return new RowHash(bytes.getLong(), bytes.getLong());
  }

  private static void put(Hasher hasher, Object value) {
    if (value == null) {
      hasher.putByte((byte) 0);
    } else if (value instanceof Integer v) {
      hasher.putByte((byte) 1).putInt(v);
    } else if (value instanceof Long v) {
      hasher.putByte((byte) 2).putLong(v);
    } else if (value instanceof Float v) {
      hasher.putByte((byte) 3).putInt(Float.floatToIntBits(v));
    } else if (value instanceof Double v) {
      hasher.putByte((byte) 4).putLong(Double.doubleToLongBits(v));
    } else if (value instanceof Boolean v) {
      hasher.putByte((byte) 5).putBoolean(v);
    } else if (value instanceof CharSequence v) {
      byte[] utf8 = v.toString().getBytes(StandardCharsets.UTF_8);
      hasher.putByte((byte) 6).putInt(utf8.length).putBytes(utf8);
    } else if (value instanceof BigDecimal v) {
      byte[] unscaled = v.unscaledValue().toByteArray();
      hasher.putByte((byte) 7).putInt(v.scale()).putInt(unscaled.length).putBytes(unscaled);
    } else if (value instanceof LocalDate v) {
      hasher.putByte((byte) 8).putLong(v.toEpochDay());
    } else if (value instanceof LocalTime v) {
      hasher.putByte((byte) 9).putLong(v.toNanoOfDay());
    } else if (value instanceof LocalDateTime v) {
      hasher.putByte((byte) 10).putLong(v.toEpochSecond(ZoneOffset.UTC)).putInt(v.getNano());
    } else if (value instanceof OffsetDateTime v) {
      hasher.putByte((byte) 11).putLong(v.toEpochSecond()).putInt(v.getNano());
    } else if (value instanceof UUID v) {
      hasher.putByte((byte) 12).putLong(v.getMostSignificantBits()).putLong(v.getLeastSignificantBits());
    } else if (value instanceof ByteBuffer v) {
      ByteBuffer bytes = v.duplicate();
      hasher.putByte((byte) 13).putInt(bytes.remaining()).putBytes(bytes);
    } else if (value instanceof byte[] v) {
      hasher.putByte((byte) 13).putInt(v.length).putBytes(v);
    } else if (value instanceof StructLike v) {
      hasher.putByte((byte) 14).putInt(v.size());
      for (int i = 0; i < v.size(); i++) {
        put(hasher, v.get(i, Object.class));
      }
    } else if (value instanceof List<?> v) {
      hasher.putByte((byte) 15).putInt(v.size());
      v.forEach(element -> put(hasher, element));
    } else if (value instanceof Map<?, ?> v) {
      hasher.putByte((byte) 16).putInt(v.size());
      v.forEach((key, element) -> {
        put(hasher, key);
        put(hasher, element);
      });
    } else {
      // a type this reader does not produce: its string form is still a stable, framed encoding
      byte[] text = (value.getClass().getName() + ":" + value).getBytes(StandardCharsets.UTF_8);
      hasher.putByte((byte) 17).putInt(text.length).putBytes(text);
    }
  }
}
