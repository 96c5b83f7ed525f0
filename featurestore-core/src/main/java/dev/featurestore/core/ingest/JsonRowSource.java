package dev.featurestore.core.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.InvalidDataException;
import dev.featurestore.core.base.ValueConverters;
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
  private final SourceErrors errors;
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
    this.errors = new SourceErrors("JSON", file);
    try {
      // a key twice in one object is refused, not resolved silently to its last value
      this.parser = new ObjectMapper().getFactory().createParser(in);
      parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    } catch (IOException e) {
      throw errors.open(e);
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
          throw errors.parse(line, "unexpected end of input: unclosed array");
        }
        finished = true;
        return false;
      }
      if (array && token == JsonToken.END_ARRAY) {
        finished = true;
        JsonToken after = parser.nextToken();
        if (after != null) {
          throw errors.parse(currentLine(), "unexpected content after the array: " + after.asString());
        }
        return false;
      }
      if (token != JsonToken.START_OBJECT) {
        throw errors.parse(line, "expected an object: " + parser.getText());
      }
      row.clear(line);
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        row.add(name, value(name));
      }
      return true;
    } catch (IOException e) {
      throw errors.read(e, line);
    }
  }

  private Object value(String name) throws IOException {
    switch (parser.currentToken()) {
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
        return parser.getNumberValue();
      case VALUE_NUMBER_FLOAT:
        if (decimalColumns.contains(name)) {
          return parser.getDecimalValue();
        }
        double d = parser.getDoubleValue();
        // 1e400 or 1e-400 do not fit a double: hand over the text so the column's converter refuses it
        return ValueConverters.outOfRange(d, parser.getText()) ? parser.getText() : (Object) d;
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
        throw errors.parse(currentLine(), "unexpected token: " + parser.currentToken());
    }
  }

  private long currentLine() {
    return parser.currentTokenLocation().getLineNr();
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
