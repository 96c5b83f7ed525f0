package dev.featurestore;


import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A split-block Bloom filter in Parquet's layout, with Parquet's hash (xxHash64, seed 0, over the
 * value's plain encoding), so a filter read from a Parquet file's footer answers exactly as Parquet
 * (and Iceberg's row-group filter) would, and a filter built here can be compared with one read
 * from a file.
 *
 * <pre>{@code
 * BloomFilter keys = BloomFilter.create(1_000_000, 0.01);
 * keys.addLong(42L);
 * keys.mightContainLong(42L);   // true
 * byte[] bytes = keys.toBytes(); // the bitset, as Parquet stores it after the filter header
 * BloomFilter copy = BloomFilter.fromBytes(bytes);
 * }</pre>
 *
 * <p>Values hash as Parquet encodes the column: {@link #addInt(int)} for {@code int}, {@code date}
 * (days) columns; {@link #addLong(long)} for {@code long}, {@code time} and {@code timestamp}
 * (micros) columns; {@link #addString(String)} (UTF-8) for {@code string}; {@link #addBytes(byte[])}
 * for {@code binary}, {@code fixed} and {@code uuid} (16 bytes). Hashing an {@code int} key as a long
 * gives a different hash: use the method of the column's type.
 *
 * <p>Sizing: {@link #optimalNumBytes(long, double)} is Parquet's ({@code -8n / ln(1 - p^(1/8))} bits,
 * rounded up to a power of two between 32 bytes and 128 MiB), so the real false-positive rate is
 * at or below the one asked for; {@link #expectedFpp(long)} estimates it for a given item count.
 *
 * <p>Mutable and not thread-safe while adding; {@link #equals(Object)} compares bitsets.
 */
public final class BloomFilter {
  /** Smallest bitset: one 32-byte block. */
  public static final int MIN_BYTES = 32;
  /** Largest bitset, as in Parquet: 128 MiB. */
  public static final int MAX_BYTES = 128 * 1024 * 1024;

  private static final int BYTES_PER_BLOCK = 32;
  private static final int[] SALT = {
      0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31};

  private final int[] words; // little-endian 32-bit words, 8 per block

  private BloomFilter(int[] words) {
    this.words = words;
  }

  /** An empty filter sized for {@code expectedItems} distinct values at false-positive rate {@code fpp}. */
  public static BloomFilter create(long expectedItems, double fpp) {
    return ofSize(optimalNumBytes(expectedItems, fpp));
  }

  /**
   * An empty filter of {@code numBytes}, rounded up to a power of two (and to at least
   * {@link #MIN_BYTES}), as Parquet does.
   *
   * @throws IllegalArgumentException if {@code numBytes} is above {@link #MAX_BYTES}
   */
  public static BloomFilter ofSize(int numBytes) {
    if (numBytes > MAX_BYTES || numBytes < 0) {
      throw new InvalidArgumentException("Cannot create bloom filter: size above " + MAX_BYTES + " bytes: " + numBytes);
    }
    int bytes = Math.max(numBytes, MIN_BYTES);
    if ((bytes & (bytes - 1)) != 0) {
      bytes = Integer.highestOneBit(bytes) << 1;
    }
    return new BloomFilter(new int[bytes / 4]);
  }

  /**
   * A filter from its bitset, as {@link #toBytes()} writes it and as Parquet stores it after the
   * Thrift filter header ({@code BlockSplitBloomFilter.writeTo} writes the same bytes).
   *
   * @throws IllegalArgumentException if the length is not a power of two between 32 bytes and 128 MiB
   */
  public static BloomFilter fromBytes(byte[] bitset) {
    InvalidArgumentException.requireNonNull(bitset, "read bloom filter", "bitset");
    int n = bitset.length;
    if (n < MIN_BYTES || n > MAX_BYTES || (n & (n - 1)) != 0) {
      throw new InvalidArgumentException(
          "Cannot read bloom filter: length must be a power of two from 32 bytes to 128 MiB: " + n);
    }
    int[] words = new int[n / 4];
    for (int i = 0; i < words.length; i++) {
      int o = i * 4;
      words[i] = (bitset[o] & 0xff) | (bitset[o + 1] & 0xff) << 8 | (bitset[o + 2] & 0xff) << 16 | (bitset[o + 3] & 0xff) << 24;
    }
    return new BloomFilter(words);
  }

  /**
   * Parquet's size for {@code expectedItems} distinct values at {@code fpp}: {@code -8n / ln(1 -
   * fpp^(1/8))} bits, rounded up to a power of two, within [32 B, 128 MiB].
   */
  public static int optimalNumBytes(long expectedItems, double fpp) {
    if (expectedItems < 0) {
      throw new InvalidArgumentException("Cannot size bloom filter: expected items must not be negative: " + expectedItems);
    }
    if (!(fpp > 0.0 && fpp < 1.0)) {
      throw new InvalidArgumentException("Cannot size bloom filter: false-positive rate must be in (0, 1): " + fpp);
    }
    double m = -8 * expectedItems / Math.log(1 - Math.pow(fpp, 1.0 / 8));
    int bits = (int) m;
    if (bits > MAX_BYTES << 3 || m < 0) {
      bits = MAX_BYTES << 3;
    }
    // Parquet's rounding, kept bit for bit (it clears bit 8 rather than the low 8 bits); the
    // power-of-two rounding below makes the result a whole number of blocks anyway
    bits = (bits + 255) & ~256;
    if (bits < MIN_BYTES << 3) {
      bits = MIN_BYTES << 3;
    }
    int bytes = bits / 8;
    if ((bytes & (bytes - 1)) != 0) {
      bytes = Integer.highestOneBit(bytes) << 1;
    }
    return Math.min(bytes, MAX_BYTES);
  }

  /**
   * The false-positive rate of a filter of {@code numBytes} holding {@code items} distinct values:
   * the chance that all 8 bits of an absent value's block are set, averaged over the (Poisson)
   * number of values per block.
   */
  public static double expectedFpp(int numBytes, long items) {
    if (numBytes < MIN_BYTES) {
      throw new InvalidArgumentException("Cannot estimate bloom filter: size below 32 bytes: " + numBytes);
    }
    double lambda = (double) items / (numBytes / BYTES_PER_BLOCK);
    double logP = -lambda; // log Poisson(0; lambda)
    double fpp = 0;
    long limit = (long) (lambda + 12 * Math.sqrt(lambda) + 64);
    for (long k = 0; k <= limit; k++) {
      if (k > 0) {
        logP += Math.log(lambda) - Math.log(k);
      }
      double bitSet = 1 - Math.pow(1 - 1.0 / 32, k); // one word's bit set by k values
      fpp += Math.exp(logP) * Math.pow(bitSet, 8);
    }
    return Math.min(1.0, fpp);
  }

  /** {@link #expectedFpp(int, long)} for this filter's size. */
  public double expectedFpp(long items) {
    return expectedFpp(sizeInBytes(), items);
  }

  /** Bytes of the bitset. */
  public int sizeInBytes() {
    return words.length * 4;
  }

  /** Number of 32-byte blocks. */
  public int numBlocks() {
    return words.length / 8;
  }

  public void addLong(long value) {
    addHash(hashLong(value));
  }

  public void addInt(int value) {
    addHash(hashInt(value));
  }

  public void addDouble(double value) {
    addHash(hashLong(Double.doubleToLongBits(value)));
  }

  public void addFloat(float value) {
    addHash(hashInt(Float.floatToIntBits(value)));
  }

  public void addString(String value) {
    addHash(hashBytes(value.getBytes(StandardCharsets.UTF_8)));
  }

  public void addBytes(byte[] value) {
    addHash(hashBytes(value));
  }

  /** Adds a value by its 64-bit hash (as {@link #hashLong(long)} etc. compute it). */
  public void addHash(long hash) {
    int block = blockIndex(hash) * 8;
    int key = (int) hash;
    for (int i = 0; i < 8; i++) {
      words[block + i] |= 1 << ((key * SALT[i]) >>> 27);
    }
  }

  public boolean mightContainLong(long value) {
    return mightContainHash(hashLong(value));
  }

  public boolean mightContainInt(int value) {
    return mightContainHash(hashInt(value));
  }

  public boolean mightContainDouble(double value) {
    return mightContainHash(hashLong(Double.doubleToLongBits(value)));
  }

  public boolean mightContainFloat(float value) {
    return mightContainHash(hashInt(Float.floatToIntBits(value)));
  }

  public boolean mightContainString(String value) {
    return mightContainHash(hashBytes(value.getBytes(StandardCharsets.UTF_8)));
  }

  public boolean mightContainBytes(byte[] value) {
    return mightContainHash(hashBytes(value));
  }

  /** False if no value with this hash was added; true if one may have been. */
  public boolean mightContainHash(long hash) {
    int block = blockIndex(hash) * 8;
    int key = (int) hash;
    for (int i = 0; i < 8; i++) {
      if ((words[block + i] & (1 << ((key * SALT[i]) >>> 27))) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Adds every value of {@code other} to this filter (bitwise OR): afterwards this filter might
   * contain everything either did. Returns this filter.
   *
   * @throws IllegalArgumentException if the sizes differ
   */
  public BloomFilter merge(BloomFilter other) {
    InvalidArgumentException.requireNonNull(other, "merge bloom filters", "other");
    if (other.words.length != words.length) {
      throw new InvalidArgumentException("Cannot merge bloom filters: sizes differ: "
          + sizeInBytes() + " and " + other.sizeInBytes() + " bytes");
    }
    for (int i = 0; i < words.length; i++) {
      words[i] |= other.words[i];
    }
    return this;
  }

  /** An independent copy. */
  public BloomFilter copy() {
    return new BloomFilter(words.clone());
  }

  /** The bitset, little-endian words: Parquet's on-disk layout (without the Thrift header). */
  public byte[] toBytes() {
    byte[] out = new byte[words.length * 4];
    for (int i = 0; i < words.length; i++) {
      int w = words[i];
      int o = i * 4;
      out[o] = (byte) w;
      out[o + 1] = (byte) (w >>> 8);
      out[o + 2] = (byte) (w >>> 16);
      out[o + 3] = (byte) (w >>> 24);
    }
    return out;
  }

  /** Fraction of bits set: a filter near 1.0 answers "might contain" to almost everything. */
  public double fillRatio() {
    long set = 0;
    for (int w : words) {
      set += Integer.bitCount(w);
    }
    return (double) set / (words.length * 32L);
  }

  private int blockIndex(long hash) {
    return (int) (((hash >>> 32) * (words.length / 8)) >>> 32);
  }

  /** Parquet's hash of an INT64 value: xxHash64 (seed 0) of its 8 little-endian bytes. */
  public static long hashLong(long value) {
    long h = XxHash64.P5 + 8;
    long k = XxHash64.round(0, value);
    h ^= k;
    h = Long.rotateLeft(h, 27) * XxHash64.P1 + XxHash64.P4;
    return XxHash64.avalanche(h);
  }

  /** Parquet's hash of an INT32 value: xxHash64 (seed 0) of its 4 little-endian bytes. */
  public static long hashInt(int value) {
    long h = XxHash64.P5 + 4;
    h ^= (value & 0xffffffffL) * XxHash64.P1;
    h = Long.rotateLeft(h, 23) * XxHash64.P2 + XxHash64.P3;
    return XxHash64.avalanche(h);
  }

  /** Parquet's hash of a BYTE_ARRAY or FIXED value: xxHash64 (seed 0) of its bytes. */
  public static long hashBytes(byte[] value) {
    InvalidArgumentException.requireNonNull(value, "hash bloom filter value", "value");
    return XxHash64.hash(value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BloomFilter other && Arrays.equals(words, other.words);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(words);
  }

  @Override
  public String toString() {
    return "BloomFilter{bytes=" + sizeInBytes() + ", fill=" + String.format(java.util.Locale.ROOT, "%.4f", fillRatio()) + "}";
  }

  /** xxHash64 with seed 0, as Parquet uses it. */
  private static final class XxHash64 {
    static final long P1 = 0x9E3779B185EBCA87L;
    static final long P2 = 0xC2B2AE3D27D4EB4FL;
    static final long P3 = 0x165667B19E3779F9L;
    static final long P4 = 0x85EBCA77C2B2AE63L;
    static final long P5 = 0x27D4EB2F165667C5L;

    private XxHash64() {}

    static long hash(byte[] b) {
      int len = b.length;
      int i = 0;
      long h;
      if (len >= 32) {
        long v1 = P1 + P2;
        long v2 = P2;
        long v3 = 0;
        long v4 = -P1;
        for (; i <= len - 32; i += 32) {
          v1 = round(v1, getLong(b, i));
          v2 = round(v2, getLong(b, i + 8));
          v3 = round(v3, getLong(b, i + 16));
          v4 = round(v4, getLong(b, i + 24));
        }
        h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        h = mergeRound(h, v1);
        h = mergeRound(h, v2);
        h = mergeRound(h, v3);
        h = mergeRound(h, v4);
      } else {
        h = P5;
      }
      h += len;
      for (; i <= len - 8; i += 8) {
        h ^= round(0, getLong(b, i));
        h = Long.rotateLeft(h, 27) * P1 + P4;
      }
      if (i <= len - 4) {
        h ^= (getInt(b, i) & 0xffffffffL) * P1;
        h = Long.rotateLeft(h, 23) * P2 + P3;
        i += 4;
      }
      for (; i < len; i++) {
        h ^= (b[i] & 0xffL) * P5;
        h = Long.rotateLeft(h, 11) * P1;
      }
      return avalanche(h);
    }

    static long round(long acc, long input) {
      acc += input * P2;
      acc = Long.rotateLeft(acc, 31);
      return acc * P1;
    }

    static long mergeRound(long acc, long val) {
      acc ^= round(0, val);
      return acc * P1 + P4;
    }

    static long avalanche(long h) {
      h ^= h >>> 33;
      h *= P2;
      h ^= h >>> 29;
      h *= P3;
      h ^= h >>> 32;
      return h;
    }

    private static long getLong(byte[] b, int i) {
      return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24
          | (b[i + 4] & 0xffL) << 32 | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48 | (b[i + 7] & 0xffL) << 56;
    }

    private static int getInt(byte[] b, int i) {
      return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | (b[i + 3] & 0xff) << 24;
    }
  }
}
