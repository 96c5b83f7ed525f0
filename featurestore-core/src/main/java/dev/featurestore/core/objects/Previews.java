package dev.featurestore.core.objects;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.featurestore.InvalidDataException;
import dev.featurestore.ObjectPreview;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/** The first rows of CSV, JSON and Parquet content, read in a streaming way and stopped early. */
final class Previews {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Previews() {}

  static ObjectPreview csv(String key, InputStream in, int maxRows) throws IOException {
    CsvMapper mapper = CsvMapper.builder().enable(CsvParser.Feature.WRAP_AS_ARRAY)
        .enable(CsvParser.Feature.SKIP_EMPTY_LINES).build();
    List<String> header = new ArrayList<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (JsonParser parser = mapper.getFactory().createParser(in)) {
      ((CsvParser) parser).setSchema(CsvSchema.emptySchema());
      if (parser.nextToken() == JsonToken.START_ARRAY) {
        List<String> record = new ArrayList<>();
        boolean first = true;
        while (rows.size() < maxRows && readRecord(parser, record)) {
          if (first) {
            header.addAll(record);
            first = false;
            continue;
          }
          Map<String, Object> row = new LinkedHashMap<>();
          for (int i = 0; i < Math.max(header.size(), record.size()); i++) {
            String name = i < header.size() ? header.get(i) : "_" + (i + 1);
            row.put(name, i < record.size() ? emptyAsNull(record.get(i)) : null);
          }
          rows.add(row);
        }
      }
    } catch (JsonProcessingException e) {
      throw new InvalidDataException("Cannot preview object: not CSV: " + e.getOriginalMessage() + ": " + key, 0, null, e);
    }
    return new ObjectPreview(key, ObjectPreview.Format.CSV, header, rows, Optional.empty(), Optional.empty());
  }

  private static Object emptyAsNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /** Reads one CSV record (a JSON array in Jackson's CSV view); false at the end. */
  private static boolean readRecord(JsonParser parser, List<String> record) throws IOException {
    record.clear();
    JsonToken token = parser.nextToken();
    if (token == null || token == JsonToken.END_ARRAY) {
      return false;
    }
    while ((token = parser.nextToken()) != null && token != JsonToken.END_ARRAY) {
      record.add(parser.getText());
    }
    return true;
  }

  static ObjectPreview json(String key, InputStream in, int maxRows) throws IOException {
    Set<String> columns = new LinkedHashSet<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (JsonParser parser = JSON.getFactory().createParser(in)) {
      JsonToken token = parser.nextToken();
      boolean array = token == JsonToken.START_ARRAY;
      if (array) {
        token = parser.nextToken();
      }
      while (token != null && rows.size() < maxRows) {
        if (array && token == JsonToken.END_ARRAY) {
          break;
        }
        if (token != JsonToken.START_OBJECT) {
          throw new InvalidDataException("Cannot preview object: expected a JSON object at line "
              + parser.currentTokenLocation().getLineNr() + ": " + key, parser.currentTokenLocation().getLineNr(), null);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> row = JSON.readValue(parser, LinkedHashMap.class);
        columns.addAll(row.keySet());
        rows.add(row);
        token = parser.nextToken();
      }
    } catch (JsonProcessingException e) {
      throw new InvalidDataException("Cannot preview object: not JSON: " + e.getOriginalMessage() + ": " + key, 0, null, e);
    }
    return new ObjectPreview(key, ObjectPreview.Format.JSON, List.copyOf(columns), rows, Optional.empty(), Optional.empty());
  }

  static ObjectPreview parquet(String key, InputFile input, int maxRows) throws IOException {
    MessageType fileType;
    long rowCount = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(input))) {
      ParquetMetadata footer = reader.getFooter();
      fileType = footer.getFileMetaData().getSchema();
      for (BlockMetaData block : footer.getBlocks()) {
        rowCount += block.getRowCount();
      }
    } catch (RuntimeException e) {
      if (e.getClass().getName().startsWith("software.amazon")) {
        throw e;
      }
      throw new InvalidDataException("Cannot preview object: not Parquet: " + e.getMessage() + ": " + key, 0, null, e);
    }
    boolean hasIds = ParquetSchemaUtil.hasIds(fileType);
    Schema schema = ParquetSchemaUtil.convert(hasIds ? fileType : ParquetSchemaUtil.addFallbackIds(fileType));
    List<String> columns = schema.columns().stream().map(Types.NestedField::name).toList();
    Parquet.ReadBuilder builder = Parquet.read(input).project(schema)
        .createReaderFunc(type -> GenericParquetReaders.buildReader(schema, type));
    if (!hasIds) {
      builder.withNameMapping(MappingUtil.create(schema));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = builder.build(); CloseableIterator<Record> it = records.iterator()) {
      while (rows.size() < maxRows && it.hasNext()) {
        Record record = it.next();
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          row.put(columns.get(i), record.get(i));
        }
        rows.add(row);
      }
    }
    return new ObjectPreview(key, ObjectPreview.Format.PARQUET, columns, rows, Optional.of(rowCount),
        Optional.of(fileType.toString().strip()));
  }
}
