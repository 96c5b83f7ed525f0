package dev.featurestore.cli;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TimeTravelQuery;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** How the command line spells durations, times and table versions. */
final class Converters {
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d|w)");

  private Converters() {}

  /** {@code 500ms}, {@code 45s}, {@code 90m}, {@code 3h}, {@code 30d}, {@code 2w}, or ISO-8601 ({@code PT3H}). */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Matcher m = SHORT_DURATION.matcher(value.strip().toLowerCase(Locale.ROOT));
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          case "d" -> Duration.ofDays(n);
          default -> Duration.ofDays(7 * n);
        };
      }
      try {
        return Duration.parse(value.strip().toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new TypeConversionException("expected a duration such as 90s, 30m, 3h, 7d or PT3H, not '" + value + "'");
      }
    }
  }

  /** A compaction's size tiers, {@code RATIO:FILES} ({@code --size-tiers 2:4}). */
  record SizeTiers(double sizeRatio, int minFiles) {}

  /**
   * {@code RATIO:FILES}: a size ratio (a decimal number) and a number of files per tier. Only the
   * spelling is checked here; the ranges are the library's ({@code Compaction.sizeTiers}).
   */
  static final class SizeTiersConverter implements ITypeConverter<SizeTiers> {
    @Override
    public SizeTiers convert(String value) {
      String[] parts = value.strip().split(":", -1);
      try {
        if (parts.length == 2) {
          return new SizeTiers(Double.parseDouble(parts[0].strip()), Integer.parseInt(parts[1].strip()));
        }
      } catch (NumberFormatException e) {
        // the message below
      }
      throw new TypeConversionException("expected RATIO:FILES such as 2:4 (a size ratio, files per tier), not '" + value + "'");
    }
  }

  /** An instant: {@code 2026-12-01T10:00:00Z}, with an offset, or a date (midnight UTC). */
  static final class InstantConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      Instant t = instant(value);
      if (t == null) {
        throw new TypeConversionException("expected a time such as 2026-12-01T10:00:00Z or 2026-12-01, not '" + value + "'");
      }
      return t;
    }
  }

  /** The instant {@code value} spells, or null. */
  static Instant instant(String value) {
    String v = value.strip();
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      // try the next form
    }
    try {
      return OffsetDateTime.parse(v).toInstant();
    } catch (DateTimeParseException e) {
      // try the next form
    }
    try {
      return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * {@code query} at the version {@code asOf} names: a snapshot id (digits), a time (ISO-8601
   * instant or date), or else a tag or branch; {@code snapshot:}, {@code time:} and {@code ref:}
   * say which explicitly.
   */
  static TimeTravelQuery asOf(TimeTravelQuery query, String asOf) {
    String v = asOf.strip();
    if (v.startsWith("snapshot:")) {
      return query.asOfSnapshot(snapshotId(v.substring("snapshot:".length())));
    }
    if (v.startsWith("time:")) {
      Instant t = instant(v.substring("time:".length()));
      InvalidArgumentException.check(t != null, "Cannot read as of time: expected an ISO-8601 time: %s", v);
      return query.asOf(t);
    }
    if (v.startsWith("ref:")) {
      return query.atRef(v.substring("ref:".length()));
    }
    if (v.matches("\\d+")) {
      return query.asOfSnapshot(snapshotId(v));
    }
    Instant t = instant(v);
    return t != null ? query.asOf(t) : query.atRef(v);
  }

  private static long snapshotId(String v) {
    try {
      return Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException("Cannot read snapshot: not a snapshot id: " + v);
    }
  }
}
