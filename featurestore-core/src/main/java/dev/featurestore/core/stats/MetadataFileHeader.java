package dev.featurestore.core.stats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.OptionalLong;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * The one field of a {@code metadata.json} that stats need: {@code current-snapshot-id}.
 *
 * <p>Streams the JSON and stops at that field, which Iceberg writes before the (large) snapshot
 * list and logs, so reading the header of every logged metadata file stays cheap even for tables
 * with many snapshots.
 */
final class MetadataFileHeader {
  private static final JsonFactory JSON = new JsonFactory();
  private static final String CURRENT_SNAPSHOT_ID = "current-snapshot-id";

  private MetadataFileHeader() {}

  /**
   * The current snapshot id recorded in the metadata file, empty if it records none (a table
   * without snapshots, where Iceberg writes -1 or omits the field).
   */
  static OptionalLong currentSnapshotId(FileIO io, String location) {
    InputFile file = io.newInputFile(location);
    try (InputStream raw = file.newStream();
        InputStream in = location.endsWith(".gz.metadata.json") ? new GZIPInputStream(raw) : raw;
        JsonParser parser = JSON.createParser(in)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalStateException("Cannot read table metadata: not a JSON object: " + location);
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (CURRENT_SNAPSHOT_ID.equals(name)) {
          if (value == JsonToken.VALUE_NUMBER_INT && parser.getLongValue() != -1L) {
            return OptionalLong.of(parser.getLongValue());
          }
          return OptionalLong.empty();
        }
        parser.skipChildren();
      }
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read table metadata: " + location, e);
    }
  }
}
