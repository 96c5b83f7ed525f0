package dev.featurestore.core.ingest;

import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The canonical text of a CSV value, per type: forms narrow enough that a typed CSV reader (an
 * engine's) and the Java path read every one of them as the same value, and that both read without
 * an error. {@link CsvShape} checks the fields of the columns it is given a kind for; the forms are
 * those {@link dev.featurestore.core.base.FileIngestEngine.Request#canonicalColumns()} promises:
 *
 * <ul>
 *   <li>{@link #INT}, {@link #LONG}: {@code -?(0|[1-9][0-9]*)} within the type's range, not {@code -0};
 *   <li>{@link #DOUBLE}: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,4})?} whose value is
 *       zero or between 1e-300 and 1e301 in magnitude (so it neither overflows nor underflows, nor
 *       is subnormal);
 *   <li>{@link #TIMESTAMP}: {@code yyyy-MM-dd}, optionally followed by {@code T} or a space, {@code
 *       HH:mm}, optionally {@code :ss} with 1 to 6 fraction digits after a point, and an offset
 *       ({@code Z} or {@code +HH:mm}/{@code -HH:mm} up to 18:00); a year from 1000, a real day of
 *       the month, hours 00-23, minutes and seconds 00-59. No offset means UTC.
 * </ul>
 */
final class CanonicalText {
  static final byte NONE = 0;
  static final byte INT = 1;
  static final byte LONG = 2;
  static final byte DOUBLE = 3;
  static final byte TIMESTAMP = 4;

  /** Decimal magnitudes (powers of ten of the first significant digit) a canonical double may have. */
  private static final int MIN_MAGNITUDE = -300;
  private static final int MAX_MAGNITUDE = 300;

  private CanonicalText() {}

  /** The kind checked for a column of {@code type}, or {@link #NONE}. */
  static byte kind(Type type) {
    switch (type.typeId()) {
      case INTEGER:
        return INT;
      case LONG:
        return LONG;
      case DOUBLE:
        return DOUBLE;
      case TIMESTAMP:
        return type instanceof Types.TimestampType ? TIMESTAMP : NONE;
      default:
        return NONE;
    }
  }

  /**
   * Whether {@code text[start, end)}, not empty, is canonical text of {@code kind}, read in place
   * and no further than {@code end}: for the fields {@link #end} cannot take, whose text is not
   * followed by a comma or line break (the text between quotes, or a field across a read's boundary
   * in {@link CsvShape}'s carry buffer). Allocates nothing.
   */
  static boolean isCanonical(byte kind, byte[] text, int start, int end) {
    switch (kind) {
      case INT:
        return integer(text, start, end, Integer.MIN_VALUE, Integer.MAX_VALUE, 10);
      case LONG:
        return integer(text, start, end, Long.MIN_VALUE, Long.MAX_VALUE, 19);
      case DOUBLE:
        return isDecimal(text, start, end);
      case TIMESTAMP:
        return timestampText(text, start, end) == end;
      default:
        return false;
    }
  }

  /** {@link #end}: the field is not canonical text. */
  static final int NOT_CANONICAL = -1;
  /** {@link #end}: the field may go on past {@code limit}; check it once its end is known. */
  static final int UNDECIDED = -2;

  /** Longest timestamp text: {@code yyyy-MM-ddTHH:mm:ss.ffffff+HH:mm}. */
  private static final int TIMESTAMP_LENGTH = 32;

  /**
   * Checks the unquoted field starting at {@code start} (not empty, not starting with a quote) in
   * the same pass that finds its end, as {@link #isCanonical} would check it.
   *
   * @return the index of the comma or line break after the field when it is canonical text of
   *     {@code kind}, {@link #NOT_CANONICAL} when it is not (or holds a byte that cannot be in a
   *     plain unquoted field), {@link #UNDECIDED} when the field may go on past {@code limit}
   */
  static int end(byte kind, byte[] b, int start, int limit) {
    switch (kind) {
      case INT:
        return integerEnd(b, start, limit, Integer.MIN_VALUE, Integer.MAX_VALUE, 10);
      case LONG:
        return integerEnd(b, start, limit, Long.MIN_VALUE, Long.MAX_VALUE, 19);
      case DOUBLE:
        return decimalEnd(b, start, limit);
      case TIMESTAMP:
        return timestampEnd(b, start, limit);
      default:
        return UNDECIDED;
    }
  }

  private static boolean isFieldEnd(byte b) {
    return b == ',' || b == '\n' || b == '\r';
  }

  private static int integerEnd(byte[] b, int start, int limit, long min, long max, int maxDigits) {
    int digitsStart = b[start] == '-' ? start + 1 : start;
    int i = skipDigits(b, digitsStart, limit);
    if (i == limit) {
      return UNDECIDED;
    }
    int digits = i - digitsStart;
    if (!isFieldEnd(b[i]) || digits == 0 || digits > maxDigits
        || (b[digitsStart] == '0' && (digits > 1 || digitsStart > start))) {
      return NOT_CANONICAL;
    }
    if (digits == maxDigits && !integer(b, start, i, min, max, maxDigits)) {
      return NOT_CANONICAL;
    }
    return i;
  }

  private static int decimalEnd(byte[] b, int start, int limit) {
    int integerStart = b[start] == '-' ? start + 1 : start;
    int i = skipDigits(b, integerStart, limit);
    if (i == limit) {
      return UNDECIDED;
    }
    int integerDigits = i - integerStart;
    if (integerDigits == 0 || (integerDigits > 1 && b[integerStart] == '0')) {
      return NOT_CANONICAL;
    }
    // the power of ten of the first non-zero digit (before the exponent); the integer part is 0 or has none
    int magnitude = b[integerStart] == '0' ? Integer.MIN_VALUE : integerDigits - 1;
    if (b[i] == '.') {
      int fractionStart = ++i;
      if (magnitude == Integer.MIN_VALUE) {
        while (i < limit && b[i] == '0') {
          i++;
        }
        if (i < limit && b[i] >= '1' && b[i] <= '9') {
          magnitude = fractionStart - i - 1;
        }
      }
      i = skipDigits(b, i, limit);
      if (i == limit) {
        return UNDECIDED;
      }
      if (i == fractionStart) {
        return NOT_CANONICAL;
      }
    }
    if (b[i] == 'e' || b[i] == 'E') {
      if (limit - i < 7) {
        return UNDECIDED;
      }
      i++;
      boolean negative = b[i] == '-';
      if (negative || b[i] == '+') {
        i++;
      }
      int exponentStart = i;
      int exponent = 0;
      while (isDigit(b[i]) && i - exponentStart < 4) {
        exponent = exponent * 10 + b[i] - '0';
        i++;
      }
      if (i == exponentStart) {
        return NOT_CANONICAL;
      }
      if (magnitude != Integer.MIN_VALUE) {
        magnitude += negative ? -exponent : exponent;
      }
    }
    if (!isFieldEnd(b[i])) {
      return NOT_CANONICAL; // also a fifth exponent digit
    }
    return magnitude == Integer.MIN_VALUE || (magnitude >= MIN_MAGNITUDE && magnitude <= MAX_MAGNITUDE)
        ? i : NOT_CANONICAL;
  }

  /** {@link #decimalEnd} of exactly {@code b[start, end)}: the same form and magnitudes, bounded by {@code end}. */
  private static boolean isDecimal(byte[] b, int start, int end) {
    int integerStart = b[start] == '-' ? start + 1 : start;
    int i = skipDigits(b, integerStart, end);
    int integerDigits = i - integerStart;
    if (integerDigits == 0 || (integerDigits > 1 && b[integerStart] == '0')) {
      return false;
    }
    int magnitude = b[integerStart] == '0' ? Integer.MIN_VALUE : integerDigits - 1;
    if (i < end && b[i] == '.') {
      int fractionStart = ++i;
      if (magnitude == Integer.MIN_VALUE) {
        while (i < end && b[i] == '0') {
          i++;
        }
        if (i < end && b[i] >= '1' && b[i] <= '9') {
          magnitude = fractionStart - i - 1;
        }
      }
      i = skipDigits(b, i, end);
      if (i == fractionStart) {
        return false;
      }
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      boolean negative = i < end && b[i] == '-';
      if (i < end && (negative || b[i] == '+')) {
        i++;
      }
      int exponentStart = i;
      int exponent = 0;
      while (i < end && isDigit(b[i]) && i - exponentStart < 4) {
        exponent = exponent * 10 + b[i] - '0';
        i++;
      }
      if (i == exponentStart) {
        return false;
      }
      if (magnitude != Integer.MIN_VALUE) {
        magnitude += negative ? -exponent : exponent;
      }
    }
    return i == end && (magnitude == Integer.MIN_VALUE || (magnitude >= MIN_MAGNITUDE && magnitude <= MAX_MAGNITUDE));
  }

  /**
   * The index of the first byte from {@code i} that is not an ASCII digit, or {@code limit}: eight
   * bytes at a time (a byte is a digit when its high nibble is 3 and adding 6 keeps it so; a carry
   * out of a non-digit byte can only disturb the bytes after it).
   */
  static int skipDigits(byte[] b, int i, int limit) {
    while (limit - i >= 8) {
      long x = (long) LONGS.get(b, i);
      long nonDigits = ((x & HIGH_NIBBLES) ^ THREES) | (((x + SIXES) & HIGH_NIBBLES) ^ THREES);
      if (nonDigits != 0) {
        return i + (Long.numberOfTrailingZeros(nonDigits) >>> 3);
      }
      i += 8;
    }
    while (i < limit && isDigit(b[i])) {
      i++;
    }
    return i;
  }

  /** Eight bytes of an array as a little-endian long (also {@link CsvShape}'s). */
  static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_NIBBLES = 0xF0F0F0F0F0F0F0F0L;
  private static final long THREES = 0x3030303030303030L;
  private static final long SIXES = 0x0606060606060606L;

  private static int timestampEnd(byte[] b, int start, int limit) {
    if (limit - start <= TIMESTAMP_LENGTH) {
      return UNDECIDED;
    }
    int end = timestampText(b, start, limit);
    return end >= 0 && isFieldEnd(b[end]) ? end : NOT_CANONICAL;
  }

  private static boolean integer(byte[] b, int start, int end, long min, long max, int maxDigits) {
    boolean negative = b[start] == '-';
    int i = negative ? start + 1 : start;
    int digits = end - i;
    if (digits <= 0 || digits > maxDigits) {
      return false;
    }
    if (b[i] == '0') {
      return digits == 1 && !negative;
    }
    // accumulated negatively, as Long.parseLong does, so that the minimum fits
    long limit = negative ? min : -max;
    long multiplyLimit = limit / 10;
    long value = 0;
    for (; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9 || value < multiplyLimit) {
        return false;
      }
      value *= 10;
      if (value < limit + d) {
        return false;
      }
      value -= d;
    }
    return true;
  }

  /**
   * Reads canonical timestamp text from {@code start}, no further than {@code end}: the index after
   * the longest canonical text there (the caller checks that the field ends there), or -1.
   */
  private static int timestampText(byte[] b, int start, int end) {
    if (end - start < 10 || b[start] < '1' || b[start] > '9') {
      return -1;
    }
    int century = twoDigits(b, start);
    int yearOfCentury = twoDigits(b, start + 2);
    int month = twoDigits(b, start + 5);
    int day = twoDigits(b, start + 8);
    if (century < 0 || yearOfCentury < 0 || month < 1 || month > 12 || day < 1 || b[start + 4] != '-'
        || b[start + 7] != '-' || day > daysInMonth(century * 100 + yearOfCentury, month)) {
      return -1;
    }
    int i = start + 10;
    if (i == end || (b[i] != 'T' && b[i] != ' ')) {
      return i;
    }
    if (end - i < 6 || b[i + 3] != ':') {
      return -1;
    }
    int hour = twoDigits(b, i + 1);
    int minute = twoDigits(b, i + 4);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59) {
      return -1;
    }
    i += 6;
    if (i < end && b[i] == ':') {
      if (end - i < 3) {
        return -1;
      }
      int second = twoDigits(b, i + 1);
      if (second < 0 || second > 59) {
        return -1;
      }
      i += 3;
      if (i < end && b[i] == '.') {
        int fractionStart = ++i;
        while (i < end && i - fractionStart < 6 && isDigit(b[i])) {
          i++;
        }
        if (i == fractionStart) {
          return -1;
        }
      }
    }
    if (i < end && b[i] == 'Z') {
      return i + 1;
    }
    if (i < end && (b[i] == '+' || b[i] == '-')) {
      if (end - i < 6 || b[i + 3] != ':') {
        return -1;
      }
      int hours = twoDigits(b, i + 1);
      int minutes = twoDigits(b, i + 4);
      boolean valid = hours >= 0 && minutes >= 0 && (hours < 18 ? minutes <= 59 : hours == 18 && minutes == 0);
      return valid ? i + 6 : -1;
    }
    return i;
  }

  /** The number in the two digits at {@code at}, or -1 when one of them is not a digit. */
  private static int twoDigits(byte[] b, int at) {
    int tens = b[at] - '0';
    int ones = b[at + 1] - '0';
    return (tens | ones) < 0 || tens > 9 || ones > 9 ? -1 : tens * 10 + ones;
  }

  private static int daysInMonth(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }
}
