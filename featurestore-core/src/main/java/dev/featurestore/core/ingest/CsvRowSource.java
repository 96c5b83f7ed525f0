package dev.featurestore.core.ingest;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.featurestore.InvalidDataException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A CSV file with a header line, read with Jackson's streaming {@link CsvParser}: one row in
 * memory at a time. Empty fields are nulls. Rows are numbered by the line they start on.
 */
final class CsvRowSource implements RowSource {
  private final String file;
  private final CsvParser parser;
  private final String[] header;
  private final Object layout = new Object();
  private final SourceErrors errors;
  private long lastLine;

  CsvRowSource(Path file) {
    this(open(file), file.toString());
  }

  static InputStream open(Path file) {
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw new StorageException("Cannot read ingest source: " + file + ": " + e.getMessage(), e);
    }
  }

  /** CSV from {@code in} (closed with this source); {@code file} names it in messages. */
  CsvRowSource(InputStream in, String file) {
    this.file = file;
    this.errors = new SourceErrors("CSV", file);
    try {
      CsvMapper mapper = CsvMapper.builder().enable(CsvParser.Feature.SKIP_EMPTY_LINES).build();
      this.parser = mapper.getFactory().createParser(in);
      parser.setSchema(CsvSchema.emptySchema());
    } catch (IOException e) {
      throw errors.open(e);
    }
    try {
      this.header = readHeader();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private String[] readHeader() {
    List<String> names = new ArrayList<>();
    long line = readRecord(names);
    if (line < 0) {
      return null;
    }
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (name == null || name.isEmpty()) {
        throw errors.parse(line, "empty column name in header");
      }
      if (!seen.add(name)) {
        throw errors.parse(line, "duplicate column in header: " + name);
      }
    }
    return names.toArray(new String[0]);
  }

  /** Reads one record's fields (empty as null); returns its line number, or -1 at the end. */
  private long readRecord(List<String> fields) {
    long line = -1;
    try {
      JsonToken token = parser.nextToken();
      if (token == null) {
        return -1;
      }
      // the record's line is where its first field starts (START_ARRAY lags behind)
      line = lastLine + 1;
      if (token != JsonToken.START_ARRAY) {
        throw errors.parse(line, "unexpected token: " + token);
      }
      boolean first = true;
      while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
        if (token == null) {
          throw errors.parse(line, "unexpected end of input");
        }
        if (first) {
          line = parser.currentTokenLocation().getLineNr();
          first = false;
        }
        String text = parser.getText();
        fields.add(text == null || text.isEmpty() ? null : text);
      }
      lastLine = Math.max(line, parser.currentLocation().getLineNr() - 1);
      return line;
    } catch (IOException e) {
      throw errors.read(e, line > 0 ? line : lastLine + 1);
    }
  }

  private final List<String> fields = new ArrayList<>();

  @Override
  public String kind() {
    return "csv";
  }

  @Override
  public boolean textValues() {
    return true;
  }

  /** The header's column names (empty for an empty file). */
  List<String> header() {
    return header == null ? List.of() : List.of(header);
  }

  @Override
  public boolean next(RawRow row) {
    if (header == null) {
      return false;
    }
    fields.clear();
    long line = readRecord(fields);
    if (line < 0) {
      return false;
    }
    if (fields.size() != header.length) {
      throw errors.parse(line, "expected " + header.length + " fields, found " + fields.size());
    }
    row.clear(line);
    row.useLayout(header, layout);
    Object[] values = row.values;
    for (int i = 0; i < header.length; i++) {
      values[i] = fields.get(i);
    }
    return true;
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
