package dev.featurestore.duckdb;

import dev.featurestore.InvalidArgumentException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sizes as DuckDB writes them ("512MB", "2GiB"): DuckDB reads KB/MB/GB/TB as powers of 1000, KiB.. as 1024. */
final class MemorySizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT])(i?)B");

  private MemorySizes() {}

  static boolean isSize(String text) {
    return SIZE.matcher(text).matches();
  }

  /** Bytes of a size {@link #isSize} accepts. */
  static long parse(String text) {
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw new InvalidArgumentException("Cannot read memory size: expected a size such as 512MB: "
          + text);
    }
    double base = m.group(3).isEmpty() ? 1000 : 1024;
    int power = "KMGT".indexOf(m.group(2).toUpperCase(Locale.ROOT)) + 1;
    return (long) (Double.parseDouble(m.group(1)) * Math.pow(base, power));
  }
}
