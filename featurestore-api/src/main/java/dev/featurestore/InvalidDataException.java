package dev.featurestore;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Input data cannot be ingested: a malformed CSV or JSON line, a value of the wrong type, a
 * missing required column or an unknown column. The message names the row (or line), the column
 * and the offending value. Nothing was committed: the table is exactly as it was.
 */
public class InvalidDataException extends ValidationException {
  private final long row;
  private final String column;

  public InvalidDataException(String message, long row, String column) {
    super(message);
    this.row = row;
    this.column = column;
  }

  public InvalidDataException(String message, long row, String column, Throwable cause) {
    super(message, cause);
    this.row = row;
    this.column = column;
  }

  /** The 1-based row (for files: the line) that failed, if known. */
  public OptionalLong row() {
    return row > 0 ? OptionalLong.of(row) : OptionalLong.empty();
  }

  /** The column that failed, if the failure is about one column. */
  public Optional<String> column() {
    return Optional.ofNullable(column);
  }
}
