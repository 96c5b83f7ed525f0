package dev.featurestore.core.base;

import dev.featurestore.BloomFilter;
import dev.featurestore.InvalidDataException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;

/**
 * Internal: keys tested against Parquet bloom filters, the one place that knows how (point lookups
 * and the file tools): a key's internal value ({@link ValueConverters#internalKey}) hashed as
 * Parquet hashes the column's plain encoding, and Parquet's stored filter as a {@link BloomFilter}.
 * Follows Iceberg's {@code ParquetBloomRowGroupFilter}: types whose Parquet encoding is not hashed here
 * (decimal, binary, fixed, boolean) are never ruled out.
 */
public final class BloomKeys {
  private BloomKeys() {}

  /** Parquet's bloom-filter hash of an internal value of {@code type}, or empty if that encoding is not hashed here. */
  public static OptionalLong hash(Type type, Object value) {
    return switch (type.typeId()) {
      case LONG, TIMESTAMP, TIME -> OptionalLong.of(BloomFilter.hashLong((Long) value));
      case INTEGER, DATE -> OptionalLong.of(BloomFilter.hashInt((Integer) value));
      case STRING -> OptionalLong.of(BloomFilter.hashBytes(value.toString().getBytes(StandardCharsets.UTF_8)));
      case DOUBLE -> OptionalLong.of(BloomFilter.hashLong(Double.doubleToLongBits((Double) value)));
      case FLOAT -> OptionalLong.of(BloomFilter.hashInt(Float.floatToIntBits((Float) value)));
      case UUID -> {
        UUID u = (UUID) value;
        yield OptionalLong.of(BloomFilter.hashBytes(ByteBuffer.allocate(16)
            .putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array()));
      }
      default -> OptionalLong.empty();
    };
  }

  /** Parquet's stored filter as the library's value type: the bitset bytes are the same layout. */
  public static BloomFilter toValue(org.apache.parquet.column.values.bloomfilter.BloomFilter parquet) {
    if (!(parquet instanceof BlockSplitBloomFilter)) {
      throw new InvalidDataException(
          "Cannot read bloom filter: not a split-block filter: " + parquet.getClass().getName(), 0, null);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(parquet.getBitsetSize());
    try {
      parquet.writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException(e); // in memory
    }
    return BloomFilter.fromBytes(out.toByteArray());
  }
}
