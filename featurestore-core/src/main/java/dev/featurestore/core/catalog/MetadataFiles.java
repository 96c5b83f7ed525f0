package dev.featurestore.core.catalog;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The {@code NNNNN-<uuid>.metadata.json} files of a table folder: their version numbers, and
 * reading one in a way that tells a file that is not table metadata (left at 0 bytes or half
 * written by a killed process) from a storage failure. Recovery skips the first and must stop on
 * the second: skipping a file that only failed to load would roll a table back.
 */
final class MetadataFiles {
  private static final Pattern NAME = Pattern.compile("(\\d+)-[0-9a-fA-F-]+(\\.gz)?\\.metadata\\.json");

  /** Newest first: higher version, then later {@code last-updated-ms}, then location. */
  static final Comparator<Readable> NEWEST_FIRST = Comparator.comparingLong(Readable::version)
      .thenComparingLong(r -> r.metadata().lastUpdatedMillis())
      .thenComparing(Readable::location)
      .reversed();

  private MetadataFiles() {}

  /** A metadata file that parsed, with its version from the file name. */
  record Readable(String location, long version, TableMetadata metadata) {}

  /** The version in a metadata file's name, or empty if {@code fileName} is not a metadata file's name. */
  static OptionalLong version(String fileName) {
    Matcher m = NAME.matcher(fileName);
    return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /**
   * The catalog's metadata files directly in {@code folder} (ending in {@code /}), newest version
   * first; a name not of the catalog's layout first of all. The path-based readers' copies
   * ({@link VersionHint}) are not listed: they copy catalog files, which are judged themselves.
   */
  static List<String> list(SupportsPrefixOperations listing, String folder) {
    List<String> files = new ArrayList<>();
    for (FileInfo file : listing.listPrefix(folder)) {
      String name = fileName(file.location());
      if (name.endsWith(".metadata.json") && !VersionHint.isCopy(name)
          && file.location().length() == folder.length() + name.length()) {
        files.add(file.location());
      }
    }
    files.sort(Comparator.comparingLong((String f) -> version(fileName(f)).orElse(Long.MAX_VALUE)).reversed()
        .thenComparing(Comparator.naturalOrder()));
    return files;
  }

  static String fileName(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }

  /**
   * Reads a metadata file. Empty if the file is not table metadata (empty, truncated, not JSON,
   * not gzip where the name says so) or is gone (deleted since it was listed).
   *
   * @throws RuntimeException of the FileIO if the file cannot be read
   */
  static Optional<TableMetadata> read(FileIO io, String location) {
    byte[] bytes;
    try (SeekableInputStream in = io.newInputFile(location).newStream()) {
      bytes = in.readAllBytes();
    } catch (NotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read metadata file: " + location, e);
    }
    if (bytes.length == 0) {
      return Optional.empty();
    }
    try {
      String json;
      if (TableMetadataParser.Codec.fromFileName(location) == TableMetadataParser.Codec.GZIP) {
        try (GZIPInputStream gzip = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
          json = new String(gzip.readAllBytes(), StandardCharsets.UTF_8);
        }
      } else {
        json = new String(bytes, StandardCharsets.UTF_8);
      }
      return Optional.of(TableMetadataParser.fromJson(location, json));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not table metadata: the bytes are all there and do not parse
    }
  }
}
