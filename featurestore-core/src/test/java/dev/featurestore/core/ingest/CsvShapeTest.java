package dev.featurestore.core.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.core.base.ValueConverters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CsvShape}'s checks of canonical text ({@link CanonicalText}): which forms pass, that every
 * form that passes is one the Java path reads without an error, and that fields crossing the scan's
 * buffer boundary are checked whole. (That the engine's typed reading of the forms that pass equals
 * the Java path's is featurestore-duckdb's DuckIngestCanonicalTest.)
 */
class CsvShapeTest {
  @TempDir Path dir;

  @Test
  void canonicalText_passesOnlyItsForms() {
    check(CanonicalText.LONG, CanonicalTextCases.LONGS, CanonicalTextCases.NOT_LONGS);
    check(CanonicalText.INT, CanonicalTextCases.INTS, CanonicalTextCases.NOT_INTS);
    check(CanonicalText.DOUBLE, CanonicalTextCases.DOUBLES, CanonicalTextCases.NOT_DOUBLES);
    check(CanonicalText.TIMESTAMP, CanonicalTextCases.TIMESTAMPS, CanonicalTextCases.NOT_TIMESTAMPS);
  }

  private static void check(byte kind, List<String> canonical, List<String> not) {
    for (String text : canonical) {
      assertThat(canonical(kind, text)).as("%s", text).isTrue();
    }
    for (String text : not) {
      if (!text.isEmpty()) {
        assertThat(canonical(kind, text)).as("%s", text).isFalse();
      }
    }
  }

  /** Whether {@code text} is canonical, checked within a longer array and at a read's end. */
  private static boolean canonical(byte kind, String text) {
    byte[] bytes = ("xx" + text + "yy").getBytes(StandardCharsets.UTF_8);
    boolean canonical = CanonicalText.isCanonical(kind, bytes, 2, bytes.length - 2);
    if (!text.contains(",")) {
      // at a read's end the one-pass check decides only when the longest canonical text fits
      byte[] field = ("xx" + text).getBytes(StandardCharsets.UTF_8);
      int end = CanonicalText.end(kind, field, 2, field.length);
      assertThat(end).as("%s", text).isIn(CanonicalText.UNDECIDED, CanonicalText.NOT_CANONICAL);
      assertThat(canonical && end == CanonicalText.NOT_CANONICAL).as("%s", text).isFalse();
    }
    return canonical;
  }

  /**
   * The in-place check of quoted and carried fields decides as the one-pass check of an unquoted
   * field does: random texts of the forms' characters (and near misses of the cases), each within a
   * longer array, against {@link CanonicalText#end} on a copy followed by a line break.
   */
  @Test
  void isCanonical_decidesAsTheOnePassCheck_onRandomTexts() {
    java.util.Random random = new java.util.Random(15);
    String alphabet = "0123456789-+.eE:TZ x,";
    List<String> cases = new java.util.ArrayList<>();
    for (List<String> list : List.of(CanonicalTextCases.LONGS, CanonicalTextCases.DOUBLES, CanonicalTextCases.TIMESTAMPS,
        CanonicalTextCases.NOT_DOUBLES, CanonicalTextCases.NOT_TIMESTAMPS)) {
      cases.addAll(list.stream().filter(text -> !text.isEmpty()).toList());
    }
    int accepted = 0;
    for (int round = 0; round < 200_000; round++) {
      StringBuilder text = new StringBuilder();
      if (random.nextBoolean()) {
        // a case with one character replaced, inserted or dropped
        text.append(cases.get(random.nextInt(cases.size())));
        int at = random.nextInt(text.length());
        char c = alphabet.charAt(random.nextInt(alphabet.length()));
        switch (random.nextInt(4)) {
          case 0 -> text.setCharAt(at, c);
          case 1 -> text.insert(at, c);
          case 2 -> text.deleteCharAt(at);
          default -> { } // unchanged
        }
      } else {
        for (int n = 1 + random.nextInt(12); n > 0; n--) {
          text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
      }
      if (text.length() == 0) {
        continue;
      }
      byte[] field = text.toString().getBytes(StandardCharsets.UTF_8);
      byte[] within = ("9" + text + "9:").getBytes(StandardCharsets.UTF_8);
      byte[] copy = java.util.Arrays.copyOf(field, field.length + 64);
      copy[field.length] = '\n';
      for (byte kind : new byte[] {CanonicalText.INT, CanonicalText.LONG, CanonicalText.DOUBLE, CanonicalText.TIMESTAMP}) {
        boolean onePass = CanonicalText.end(kind, copy, 0, copy.length) == field.length;
        assertThat(CanonicalText.isCanonical(kind, within, 1, within.length - 2)).as("%s as %s", text, kind)
            .isEqualTo(onePass);
        accepted += onePass ? 1 : 0;
      }
    }
    assertThat(accepted).as("texts that pass").isGreaterThan(10_000);
  }

  /** A quoted field of a checked column is checked inside its quotes: every case of every kind. */
  @Test
  void check_quotedFields_ofEveryKind_passOnlyTheirForms() throws Exception {
    Map<Byte, List<List<String>>> cases = Map.of(
        CanonicalText.INT, List.of(CanonicalTextCases.INTS, CanonicalTextCases.NOT_INTS),
        CanonicalText.LONG, List.of(CanonicalTextCases.LONGS, CanonicalTextCases.NOT_LONGS),
        CanonicalText.DOUBLE, List.of(CanonicalTextCases.DOUBLES, CanonicalTextCases.NOT_DOUBLES),
        CanonicalText.TIMESTAMP, List.of(CanonicalTextCases.TIMESTAMPS, CanonicalTextCases.NOT_TIMESTAMPS));
    for (Map.Entry<Byte, List<List<String>>> kind : cases.entrySet()) {
      for (String text : kind.getValue().get(0)) {
        assertThat(check(write("s,n\nx,\"" + text + "\"\ny,\"" + text + "\""), kind.getKey())).as(text).isEqualTo(2);
      }
      for (String text : kind.getValue().get(1)) {
        if (!text.isEmpty()) {
          assertThatThrownBy(() -> check(write("s,n\nx,\"" + text + "\"\n"), kind.getKey())).as(text)
              .isInstanceOf(CsvShape.NotPlain.class).hasMessageStartingWith("value of column n outside its canonical text");
        }
      }
    }
  }

  /** The eight-bytes-at-a-time scans stop where a byte-by-byte one does: every byte value at every position. */
  @Test
  void skipDigits_and_skipPlain_stopAtTheFirstByteThatEndsTheirRun() {
    skipStopsAt(10, CanonicalText::skipDigits, b -> b < '0' || b > '9');
    skipStopsAt(200, CsvShape::skipPlain, b -> b == 0 || b == '\n' || b == '\r' || b == '"' || b == ',');
  }

  interface Skip {
    int skip(byte[] b, int i, int limit);
  }

  /** Runs of random bytes from {@code 48 + random(range)} with one byte of every value at every position. */
  private static void skipStopsAt(int range, Skip skip, java.util.function.IntPredicate stops) {
    java.util.Random random = new java.util.Random(7);
    for (int length = 0; length <= 20; length++) {
      for (int at = 0; at < length; at++) {
        for (int value = 0; value < 256; value++) {
          byte[] b = new byte[length + 2];
          for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('0' + random.nextInt(range));
          }
          b[at + 1] = (byte) value;
          if (random.nextBoolean() && at + 2 < b.length) {
            b[at + 2] = (byte) random.nextInt(256); // whatever follows the byte
          }
          int expected = 1;
          while (expected < length + 1 && !stops.test(b[expected])) {
            expected++;
          }
          assertThat(skip.skip(b, 1, length + 1)).as("length %d, byte %d at %d", length, value, at).isEqualTo(expected);
        }
      }
    }
  }

  /** Every canonical text is a value the Java path reads (the engine declines nothing the Java path takes badly). */
  @Test
  void canonicalText_isReadByTheJavaPath() {
    read(Types.LongType.get(), CanonicalTextCases.LONGS);
    read(Types.IntegerType.get(), CanonicalTextCases.INTS);
    read(Types.DoubleType.get(), CanonicalTextCases.DOUBLES);
    read(Types.TimestampType.withZone(), CanonicalTextCases.TIMESTAMPS);
    read(Types.TimestampType.withoutZone(), CanonicalTextCases.TIMESTAMPS);
    assertThat(CanonicalText.kind(Types.TimestampNanoType.withZone())).isEqualTo(CanonicalText.NONE);
    assertThat(CanonicalText.kind(Types.StringType.get())).isEqualTo(CanonicalText.NONE);
    assertThat(CanonicalText.kind(Types.FloatType.get())).isEqualTo(CanonicalText.NONE);
  }

  private static void read(Type type, List<String> texts) {
    assertThat(CanonicalText.kind(type)).isNotEqualTo(CanonicalText.NONE);
    ValueConverters.Converter converter = ValueConverters.forType(type);
    for (String text : texts) {
      Object value = converter.convert(text);
      assertThat(value).as("%s as %s", text, type).isNotNull();
      if (value instanceof Double d) {
        assertThat(Double.isFinite(d)).as(text).isTrue();
      }
    }
  }

  @Test
  void check_refusesAFieldOutsideItsColumnsCanonicalText_notTheHeader() throws Exception {
    Path ok = write("n,s,t\n1,x,2024-01-01T00:00:00Z\n-5,\"y\",2024-01-01\n");
    assertThat(check(ok)).isEqualTo(2);

    assertThatThrownBy(() -> check(write("n,s,t\n1,x,2024-01-01\n+5,y,2024-01-01\n")))
        .isInstanceOf(CsvShape.NotPlain.class).hasMessage("value of column n outside its canonical text at line 3");
    assertThatThrownBy(() -> check(write("n,s,t\n1,x,2024-02-30\n")))
        .isInstanceOf(CsvShape.NotPlain.class).hasMessage("value of column t outside its canonical text at line 2");
    // unchecked columns take anything plain
    assertThat(check(write("n,s,t\n1,+5 x,\n"))).isEqualTo(1);
  }

  @Test
  void check_quotedFields_areCheckedInsideTheirQuotes() throws Exception {
    assertThat(check(write("n,s,t\n\"12\",x,\"2024-01-01 10:00:00\"\n"))).isEqualTo(1);
    assertThatThrownBy(() -> check(write("n,s,t\n\"1\"\"2\",x,\n"))).isInstanceOf(CsvShape.NotPlain.class)
        .hasMessageContaining("column n");
    assertThatThrownBy(() -> check(write("n,s,t\n\" 12\",x,\n"))).isInstanceOf(CsvShape.NotPlain.class)
        .hasMessageContaining("column n");
    assertThatThrownBy(() -> check(write("n,s,t\n1,x,\"2024-01-01\nT10:00\"\n"))).isInstanceOf(CsvShape.NotPlain.class)
        .hasMessageContaining("column t");
  }

  @Test
  void check_emptyFields_refusedOnlyInRequiredColumns() throws Exception {
    // t optional: empty unquoted, quoted, last in the file without a line break
    assertThat(check(write("n,s,t\n1,x,\n2,y,\"\"\n3,z,"))).isEqualTo(3);
    for (String csv : List.of("n,s,t\n,x,\n", "n,s,t\n\"\",x,\n", "n,s,t\n1,x,\n,y,2024-01-01")) {
      assertThatThrownBy(() -> check(write(csv))).as(csv).isInstanceOf(CsvShape.NotPlain.class)
          .hasMessageStartingWith("empty field in required column n");
    }
  }

  @Test
  void check_theLastFieldWithoutALineBreak_isChecked() throws Exception {
    assertThat(check(write("s,n\nx,12"), CanonicalText.LONG)).isEqualTo(1);
    assertThat(check(write("s,n\nx,\"12\""), CanonicalText.LONG)).isEqualTo(1);
    assertThatThrownBy(() -> check(write("s,n\nx,1x"), CanonicalText.LONG)).isInstanceOf(CsvShape.NotPlain.class);
    assertThatThrownBy(() -> check(write("s,n\nx,\"1x\""), CanonicalText.LONG)).isInstanceOf(CsvShape.NotPlain.class);
  }

  /**
   * A checked field at every position across the boundary between two reads: it is checked whole,
   * unquoted and quoted (the closing quote the last byte of one read, the first of the next).
   */
  @Test
  void check_fieldsAcrossTheBufferBoundary_areCheckedWhole() throws Exception {
    Map<Byte, String> values = Map.of(CanonicalText.LONG, "1234567890123", CanonicalText.DOUBLE, "-12.5e-3",
        CanonicalText.TIMESTAMP, "2024-01-01T10:00:00.123+05:30");
    for (Map.Entry<Byte, String> kindAndValue : values.entrySet()) {
      byte kind = kindAndValue.getKey();
      String text = kindAndValue.getValue();
      for (String newline : List.of("\n", "\r\n")) {
        String header = "s,n" + newline;
        for (boolean quoted : new boolean[] {false, true}) {
          String value = quoted ? "\"" + text + "\"" : text;
          for (int shift = -2; shift <= value.length() + 1; shift++) {
            // the value starts `shift` bytes before the boundary
            String start = header + "p".repeat(CsvShape.BUFFER - shift - header.length() - 1) + ",";
            String context = "shift " + shift + ", " + value + ", " + newline.length();
            assertThat(check(write(start + value + newline + "x," + text + newline), kind)).as(context).isEqualTo(2);
            assertThat(check(write(start + value), kind)).as(context).isEqualTo(1);
            for (int bad : new int[] {0, text.length() / 2, text.length() - 1}) {
              String wrong = value.replace(text, text.substring(0, bad) + "x" + text.substring(bad + 1));
              for (String file : List.of(start + wrong + newline + "x,5" + newline, start + wrong)) {
                assertThatThrownBy(() -> check(write(file), kind)).as(context + ", bad character " + bad)
                    .isInstanceOf(CsvShape.NotPlain.class).hasMessageContaining("column n");
              }
            }
          }
        }
      }
    }
  }

  /** Columns n (long, required), s (not checked), t (timestamp, optional). */
  private static long check(Path file) throws Exception {
    return CsvShape.check(file, new byte[] {CanonicalText.LONG, CanonicalText.NONE, CanonicalText.TIMESTAMP},
        new boolean[] {true, false, false}, new String[] {"n", "s", "t"}, () -> false);
  }

  /** Columns s (not checked), n (of {@code kind}). */
  private static long check(Path file, byte kind) throws Exception {
    return CsvShape.check(file, new byte[] {CanonicalText.NONE, kind}, new boolean[] {false, true},
        new String[] {"s", "n"}, () -> false);
  }

  private Path write(String csv) throws Exception {
    Path file = dir.resolve("f.csv");
    Files.write(file, csv.getBytes(StandardCharsets.UTF_8));
    return file;
  }
}
