package dev.featurestore.core.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.InvalidDataException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Set;

/**
 * A JSON file, read with Jackson's streaming parser (bounded memory whatever the file size):
 * either JSON lines (objects one after another) or one top-level array of objects, told apart by
 * the first non-whitespace character. Rows are numbered by the line their object starts on.
 */
final class JsonRowSource implements RowSource {
  private final String file;
  private final JsonParser parser;
  private final Set<String> decimalColumns;
  private boolean array;
  private boolean started;
  private boolean finished;

  /** @param decimalColumns columns whose fractional numbers are read exactly (as BigDecimal) */
  JsonRowSource(Path file, Set<String> decimalColumns) {
    this(CsvRowSource.open(file), file.toString(), decimalColumns);
  }

  /** JSON from {@code in} (closed with this source); {@code file} names it in messages. */
  JsonRowSource(InputStream in, String file, Set<String> decimalColumns) {
    this.file = file;
    this.decimalColumns = decimalColumns;
    try {
      this.parser = new ObjectMapper().getFactory().createParser(in);
    } catch (IOException e) {
      throw new StorageException("Cannot read ingest source: " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String kind() {
    return "json";
  }

  @Override
  public boolean next(RawRow row) {
    if (finished) {
      return false;
    }
    long line = currentLine();
    try {
      JsonToken token = parser.nextToken();
      line = currentLine();
      if (!started) {
        started = true;
        if (token == JsonToken.START_ARRAY) {
          array = true;
          token = parser.nextToken();
          line = currentLine();
        }
      }
      if (token == null) {
        if (array) {
          throw parseError(line, "unexpected end of input: unclosed array");
        }
        finished = true;
        return false;
      }
      if (array && token == JsonToken.END_ARRAY) {
        finished = true;
        JsonToken after = parser.nextToken();
        if (after != null) {
          throw parseError(currentLine(), "unexpected content after the array: " + after.asString());
        }
        return false;
      }
      if (token != JsonToken.START_OBJECT) {
        throw parseError(line, "expected an object: " + parser.getText());
      }
      row.clear(line);
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        row.add(name, value(name));
      }
      return true;
    } catch (JsonProcessingException e) {
      JsonLocation location = e.getLocation();
      long at = location != null && location.getLineNr() > 0 ? location.getLineNr() : line;
      throw parseError(at, e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new StorageException("Cannot read ingest source: " + file + ": " + e.getMessage(), e);
    }
  }

  private Object value(String name) throws IOException {
    switch (parser.currentToken()) {
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
        return parser.getNumberValue();
      case VALUE_NUMBER_FLOAT:
        return decimalColumns.contains(name) ? parser.getDecimalValue() : (Object) parser.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      case START_OBJECT:
      case START_ARRAY:
        return parser.readValueAs(Object.class);
      default:
        throw parseError(currentLine(), "unexpected token: " + parser.currentToken());
    }
  }

  private long currentLine() {
    return parser.currentTokenLocation().getLineNr();
  }

  private static InvalidDataException parseError(long line, String reason) {
    return new InvalidDataException("Cannot parse JSON at line " + line + ": " + reason, line, null);
  }

  private static InvalidDataException parseError(long line, String reason, Throwable cause) {
    return new InvalidDataException("Cannot parse JSON at line " + line + ": " + reason, line, null, cause);
  }

  @Override
  public void close() {
    try {
      parser.close();
    } catch (IOException e) {
      // read-only: nothing to lose
    }
  }
}
