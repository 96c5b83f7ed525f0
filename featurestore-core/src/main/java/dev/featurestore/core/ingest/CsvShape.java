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
 */
final class CsvShape {
  private static final int BUFFER = 1 << 20;

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

  private final int columns;
  private int state = RECORD_START;
  private int delimiters;
  private long records;
  private long line = 1;
  /** 0 before the first record ends, then 1 for LF and 2 for CRLF. */
  private int newline;

  private CsvShape(int columns) {
    this.columns = columns;
  }

  /**
   * Checks {@code file} (header included) against a header of {@code columns} fields.
   *
   * @return the number of records after the header
   * @throws NotPlain if the file is outside the plain shape
   * @throws IOException if the file cannot be read
   * @throws java.util.concurrent.CancellationException when {@code cancelled} turns true
   */
  static long check(Path file, int columns, BooleanSupplier cancelled) throws IOException, NotPlain {
    CsvShape shape = new CsvShape(columns);
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
          while (!SPECIAL[b]) {
            if (++i == length) {
              return;
            }
            b = bytes[i] & 0xFF;
          }
          if (b == ',') {
            delimiters++;
            state = FIELD_START;
          } else if (b == '\n') {
            endRecord(1);
          } else if (b == '\r') {
            state = CR;
          } else if (b == '"') {
            throw notPlain("quote inside an unquoted field");
          } else {
            throw notPlain("NUL byte");
          }
          break;
        case RECORD_START:
          if (b == '\n' || b == '\r') {
            throw notPlain("empty line");
          }
          // fall through: a record starts with a field
        case FIELD_START:
          if (b == '"') {
            state = QUOTED;
          } else if (b == ',') {
            delimiters++;
            state = FIELD_START;
          } else if (b == '\n') {
            endRecord(1);
          } else if (b == '\r') {
            state = CR;
          } else if (b == 0) {
            throw notPlain("NUL byte");
          } else {
            state = UNQUOTED;
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
              return;
            }
            b = bytes[i] & 0xFF;
          }
          state = QUOTE_SEEN;
          break;
        case QUOTE_SEEN:
          if (b == '"') {
            state = QUOTED;
          } else if (b == ',') {
            delimiters++;
            state = FIELD_START;
          } else if (b == '\n') {
            endRecord(1);
          } else if (b == '\r') {
            state = CR;
          } else {
            throw notPlain("characters after a closing quote");
          }
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
      default:
        // the last record without a final line break
        endFields();
        state = RECORD_START;
    }
  }

  private NotPlain notPlain(String reason) {
    return new NotPlain(reason + " at line " + line);
  }
}
