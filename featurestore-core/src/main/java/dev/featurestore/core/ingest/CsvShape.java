package dev.featurestore.core.ingest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BooleanSupplier;

/**
 * Checks that a CSV file has the plain shape on which every CSV reader agrees, in one pass over its
 * bytes: records end with {@code \n} or {@code \r\n} (one style per file); fields are separated by
 * commas and are either unquoted (no quote, no line break) or quoted from their first to their last
 * character ({@code ""} inside for a quote, line breaks allowed); every record, the header too, has
 * the header's number of fields; no empty line (except the file's last line break), no NUL byte.
 *
 * <p>Outside that shape readers disagree, and an engine's reader would read other rows than the Java
 * path's Jackson parser: DuckDB, for one, drops trailing empty fields ({@code 1,x,,} is two fields),
 * strips the spaces around a quoted field and reads an empty line as a row of nulls, where Jackson
 * reports the line or skips it. A file outside the shape is ingested by the Java path.
 *
 * <p>It also checks the fields of the columns it is given a {@link CanonicalText} kind for (not the
 * header's): each is empty (null; not allowed in a required column) or, unquoted or inside its
 * quotes, in that kind's canonical text, on which an engine's typed reader and the Java path agree.
 * A field outside it makes the file "not plain" too, so the Java path ingests it.
 */
final class CsvShape {
  /** The bytes read at a time (package-private for tests of fields across a boundary). */
  static final int BUFFER = 1 << 20;

  private static final int RECORD_START = 0;
  private static final int FIELD_START = 1;
  private static final int UNQUOTED = 2;
  private static final int QUOTED = 3;
  private static final int QUOTE_SEEN = 4;
  private static final int CR = 5;

  /** Bytes that end an unquoted run: NUL, LF, CR, quote, comma. */
  private static final boolean[] SPECIAL = new boolean[256];

  static {
    for (char c : new char[] {0, '\n', '\r', '"', ','}) {
      SPECIAL[c] = true;
    }
  }

  /** The file is not in the plain shape; the reason says where and why. */
  static final class NotPlain extends Exception {
    private static final long serialVersionUID = 1L;

    NotPlain(String reason) {
      super(reason, null, false, false);
    }
  }

  /** Longest field of a checked column taken across a buffer boundary. */
  private static final int CARRY = 256;

  private final int columns;
  /** Per column, its {@link CanonicalText} kind (0: not checked); all 0 while in the header. */
  private byte[] kinds;
  private final byte[] checkedKinds;
  private final boolean[] required;
  private final String[] names;
  /** Where the current field's text starts in the buffer; -1 when its start is in {@link #carry}. */
  private int fieldStart;
  private final byte[] carry = new byte[CARRY];
  private int carried;
  private int state = RECORD_START;
  private int delimiters;
  private long records;
  private long line = 1;
  /** 0 before the first record ends, then 1 for LF and 2 for CRLF. */
  private int newline;

  private CsvShape(int columns, byte[] kinds, boolean[] required, String[] names) {
    this.columns = columns;
    this.checkedKinds = kinds;
    this.kinds = new byte[columns];
    this.required = required;
    this.names = names;
  }

  /**
   * Checks {@code file} (header included) against a header of {@code kinds.length} fields, and the
   * fields of every column whose {@link CanonicalText} kind in {@code kinds} is not 0.
   *
   * @param required per column, whether an empty field is refused (where its kind is not 0)
   * @param names per column, its name (for the reason)
   * @return the number of records after the header
   * @throws NotPlain if the file is outside the plain shape or a checked field outside its canonical text
   * @throws IOException if the file cannot be read
   * @throws java.util.concurrent.CancellationException when {@code cancelled} turns true
   */
  static long check(Path file, byte[] kinds, boolean[] required, String[] names, BooleanSupplier cancelled)
      throws IOException, NotPlain {
    CsvShape shape = new CsvShape(kinds.length, kinds.clone(), required.clone(), names.clone());
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
      byte[] bytes = buffer.array();
      int n;
      while ((n = channel.read(buffer.clear())) >= 0) {
        if (cancelled.getAsBoolean()) {
          throw new java.util.concurrent.CancellationException("CSV shape check stopped");
        }
        shape.scan(bytes, n);
      }
    }
    shape.end();
    return Math.max(0, shape.records - 1);
  }

  private void scan(byte[] bytes, int length) throws NotPlain {
    int i = 0;
    while (i < length) {
      int b = bytes[i] & 0xFF;
      switch (state) {
        case UNQUOTED:
          // the hot loop: plain bytes of an unquoted field
          i = skipPlain(bytes, i, length);
          if (i == length) {
            keep(bytes, length);
            return;
          }
          b = bytes[i] & 0xFF;
          if (b == '"') {
            throw notPlain("quote inside an unquoted field");
          }
          if (b == 0) {
            throw notPlain("NUL byte");
          }
          endField(bytes, i);
          afterField(b);
          break;
        case RECORD_START:
          if (b == '\n' || b == '\r') {
            throw notPlain("empty line");
          }
          // fall through: a record starts with a field
        case FIELD_START:
          if (b == '"') {
            state = QUOTED;
            fieldStart = i + 1;
            carried = 0;
          } else if (b == ',') {
            emptyField();
            delimiters++;
            state = FIELD_START;
          } else if (b == '\n') {
            emptyField();
            endRecord(1);
          } else if (b == '\r') {
            emptyField();
            state = CR;
          } else if (b == 0) {
            throw notPlain("NUL byte");
          } else {
            if (checked()) {
              // checked while its end is found, in one pass (the field's end within this buffer)
              int end = CanonicalText.end(kinds[delimiters], bytes, i, length);
              if (end >= 0) {
                i = end;
                afterField(bytes[i]);
                break;
              }
              if (end == CanonicalText.NOT_CANONICAL) {
                throw notCanonical();
              }
            }
            state = UNQUOTED;
            fieldStart = i;
            carried = 0;
          }
          break;
        case QUOTED:
          while (b != '"') {
            if (b == 0) {
              throw notPlain("NUL byte");
            }
            if (b == '\n') {
              line++;
            }
            if (++i == length) {
              keep(bytes, length);
              return;
            }
            b = bytes[i] & 0xFF;
          }
          state = QUOTE_SEEN;
          break;
        case QUOTE_SEEN:
          if (b == '"') {
            if (checked()) {
              throw notCanonical();
            }
            state = QUOTED;
            break;
          }
          if (b != ',' && b != '\n' && b != '\r') {
            throw notPlain("characters after a closing quote");
          }
          if (checked()) {
            // the text between the quotes (the closing one is the byte before this one)
            if (i == 0) {
              carried--;
              endField(bytes, 0);
            } else {
              endField(bytes, i - 1);
            }
          }
          afterField(b);
          break;
        case CR:
          if (b != '\n') {
            throw notPlain("line break \\r without \\n");
          }
          endRecord(2);
          break;
        default:
          throw new IllegalStateException("state " + state);
      }
      i++;
    }
    if (state == UNQUOTED || state == QUOTED || state == QUOTE_SEEN) {
      // a field that started on the buffer's last byte, or whose closing quote was that byte (the
      // field's end drops the quote again)
      keep(bytes, length);
    }
  }

  /**
   * The index of the first byte from {@code i} that ends an unquoted run (NUL, LF, CR, quote,
   * comma), or {@code limit}: eight bytes at a time up to the first byte below {@code -} (all five
   * are; most plain text is not), which is then looked up.
   */
  static int skipPlain(byte[] b, int i, int limit) {
    while (limit - i >= 8) {
      long x = (long) CanonicalText.LONGS.get(b, i);
      // the high bit of each byte below 0x2D; the lowest one flagged is exact (wrong flags only above it)
      long below = (x - 0x2D2D2D2D2D2D2D2DL) & ~x & 0x8080808080808080L;
      if (below == 0) {
        i += 8;
        continue;
      }
      int at = i + (Long.numberOfTrailingZeros(below) >>> 3);
      if (SPECIAL[b[at] & 0xFF]) {
        return at;
      }
      i = at + 1;
    }
    while (i < limit && !SPECIAL[b[i] & 0xFF]) {
      i++;
    }
    return i;
  }

  /** Moves past the comma or line break {@code b} that ended a field. */
  private void afterField(int b) throws NotPlain {
    if (b == ',') {
      delimiters++;
      state = FIELD_START;
    } else if (b == '\n') {
      endRecord(1);
    } else {
      state = CR;
    }
  }

  /** Whether the current field's column is checked. */
  private boolean checked() {
    return delimiters < columns && kinds[delimiters] != 0;
  }

  /** Keeps the start of a checked field that continues in the next buffer. */
  private void keep(byte[] bytes, int length) throws NotPlain {
    if (!checked()) {
      return;
    }
    int start = fieldStart < 0 ? 0 : fieldStart;
    int n = length - start;
    if (carried + n > CARRY) {
      throw notCanonical();
    }
    System.arraycopy(bytes, start, carry, carried, n);
    carried += n;
    fieldStart = -1;
  }

  /** A field ended at {@code end} (exclusive): checks a checked column's text. */
  private void endField(byte[] bytes, int end) throws NotPlain {
    if (!checked()) {
      return;
    }
    byte[] text = bytes;
    int start = fieldStart;
    int stop = end;
    if (fieldStart < 0) {
      if (carried + end > CARRY) {
        throw notCanonical();
      }
      System.arraycopy(bytes, 0, carry, carried, end);
      text = carry;
      start = 0;
      stop = carried + end;
    }
    if (start == stop) {
      emptyField();
    } else if (!CanonicalText.isCanonical(kinds[delimiters], text, start, stop)) {
      throw notCanonical();
    }
  }

  /** An empty field (null): refused in a checked required column. */
  private void emptyField() throws NotPlain {
    if (checked() && required[delimiters]) {
      throw notPlain("empty field in required column " + names[delimiters]);
    }
  }

  private NotPlain notCanonical() {
    return notPlain("value of column " + names[delimiters] + " outside its canonical text");
  }

  private void endRecord(int style) throws NotPlain {
    if (newline == 0) {
      newline = style;
    } else if (newline != style) {
      throw notPlain("mixed line breaks");
    }
    endFields();
    line++;
    state = RECORD_START;
    if (records == 1) {
      kinds = checkedKinds; // fields are checked from the first record after the header
    }
  }

  private void endFields() throws NotPlain {
    if (delimiters + 1 != columns) {
      throw notPlain("expected " + columns + " fields, found " + (delimiters + 1));
    }
    delimiters = 0;
    records++;
  }

  private void end() throws NotPlain {
    switch (state) {
      case RECORD_START:
        return;
      case QUOTED:
        throw notPlain("unterminated quoted field");
      case CR:
        throw notPlain("line break \\r without \\n");
      case UNQUOTED:
        endField(new byte[0], 0);
        endFields();
        state = RECORD_START;
        return;
      case QUOTE_SEEN:
        if (checked()) {
          carried--; // the closing quote
          endField(new byte[0], 0);
        }
        endFields();
        state = RECORD_START;
        return;
      default:
        // the last record without a final line break, ending in an empty field
        emptyField();
        endFields();
        state = RECORD_START;
    }
  }

  private NotPlain notPlain(String reason) {
    return new NotPlain(reason + " at line " + line);
  }
}
