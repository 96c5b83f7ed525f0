package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.NotFoundException;
import dev.featurestore.TableId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Tables opened from their metadata alone, without a catalog (Iceberg's
 * {@link StaticTableOperations}: fixed at one version, every commit refused). The location is a
 * metadata file, or a table's base location whose {@code metadata/version-hint.text} names the
 * version ({@link VersionHint}: a number, as the store and {@code HadoopTables} write it, then
 * {@code v<N>.metadata.json}; or a metadata file's name without {@code .metadata.json}).
 */
public final class StaticTables {
  private StaticTables() {}

  /** A table opened read-only, and the metadata file it was read from. */
  public record Opened(TableId id, Table table, String metadataLocation) {}

  /**
   * Opens the table at {@code location} (already resolved to something {@code io} reads).
   *
   * @throws NotFoundException if there is no metadata file or version hint there
   * @throws InvalidDataException if the file is not table metadata
   */
  public static Opened open(FileIO io, String location) {
    String metadataLocation = location.endsWith(".metadata.json") ? location : fromHint(io, stripSlashes(location));
    if (!io.newInputFile(metadataLocation).exists()) {
      throw new NotFoundException("Cannot open table read-only: no metadata file: " + FeatureStoreException.printable(metadataLocation));
    }
    TableMetadata metadata = MetadataFiles.read(io, metadataLocation).orElseThrow(() -> new InvalidDataException(
        "Cannot open table read-only: not table metadata (empty, truncated or not JSON): "
            + FeatureStoreException.printable(metadataLocation), 0, null));
    TableId id = idOf(metadata.location());
    Table table = new BaseTable(new StaticTableOperations(metadata, io), id.toString());
    return new Opened(id, table, metadataLocation);
  }

  private static String fromHint(FileIO io, String tableLocation) {
    String folder = tableLocation + "/metadata";
    InputFile hint = io.newInputFile(folder + "/" + VersionHint.FILE_NAME);
    if (!hint.exists()) {
      throw new NotFoundException("Cannot open table read-only: not a metadata file and no "
          + VersionHint.FILE_NAME + " under its metadata folder: " + FeatureStoreException.printable(tableLocation));
    }
    String text;
    try (SeekableInputStream in = hint.newStream()) {
      text = new String(in.readNBytes(1024), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read version hint: " + hint.location(), e);
    }
    if (text.matches("\\d{1,18}")) {
      String plain = folder + "/v" + Long.parseLong(text) + ".metadata.json";
      String gzip = folder + "/v" + Long.parseLong(text) + ".gz.metadata.json";
      return !io.newInputFile(plain).exists() && io.newInputFile(gzip).exists() ? gzip : plain;
    }
    if (!text.matches("[A-Za-z0-9_.-]{1,200}") || text.contains("..")) {
      throw new InvalidDataException("Cannot open table read-only: version hint is not a version or a metadata file name: "
          + hint.location(), 0, null);
    }
    return folder + "/" + text + (text.endsWith(".metadata.json") ? "" : ".metadata.json");
  }

  /** {@code <namespace>.<table>} from the last two folders of the table location, when they are valid names. */
  static TableId idOf(String tableLocation) {
    String[] parts = stripSlashes(tableLocation).split("/");
    if (parts.length >= 2) {
      try {
        return TableId.of(parts[parts.length - 2], parts[parts.length - 1]);
      } catch (InvalidArgumentException e) {
        // a folder name that is not a table name: use a neutral id
      }
    }
    return TableId.of("read_only", "table");
  }

  private static String stripSlashes(String location) {
    String stripped = location;
    while (stripped.endsWith("/")) {
      stripped = stripped.substring(0, stripped.length() - 1);
    }
    return stripped;
  }
}
