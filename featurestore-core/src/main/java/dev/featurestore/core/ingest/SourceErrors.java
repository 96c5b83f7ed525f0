package dev.featurestore.core.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.StorageException;
import java.io.CharConversionException;
import java.io.IOException;

/**
 * The errors of the text sources (CSV, JSON), in one shape: a malformed line is an
 * {@link InvalidDataException} naming the format and the line; bytes that are not UTF-8 are
 * malformed input too, not a storage failure; any other I/O failure is a {@link StorageException}.
 */
final class SourceErrors {
  private final String format;
  private final String file;

  /** @param format the name in messages ({@code CSV}, {@code JSON}); @param file the source's name */
  SourceErrors(String format, String file) {
    this.format = format;
    this.file = file;
  }

  InvalidDataException parse(long line, String reason) {
    return new InvalidDataException("Cannot parse " + format + " at line " + line + ": " + reason, line, null);
  }

  InvalidDataException parse(long line, String reason, Throwable cause) {
    return new InvalidDataException("Cannot parse " + format + " at line " + line + ": " + reason, line, null, cause);
  }

  /** A failure of the parser at {@code line} (or at the line its location names). */
  RuntimeException read(IOException e, long line) {
    if (e instanceof JsonProcessingException) {
      JsonLocation location = ((JsonProcessingException) e).getLocation();
      long at = location != null && location.getLineNr() > 0 ? location.getLineNr() : line;
      return parse(at, ((JsonProcessingException) e).getOriginalMessage(), e);
    }
    if (e instanceof CharConversionException) {
      // Jackson's UTF-8 decoder: the file is not UTF-8 at or after this line
      return parse(line, "invalid UTF-8: " + e.getMessage(), e);
    }
    return open(e);
  }

  /** The source could not be opened or read at all. */
  StorageException open(IOException e) {
    return new StorageException("Cannot read ingest source: " + file + ": " + e.getMessage(), e);
  }
}
