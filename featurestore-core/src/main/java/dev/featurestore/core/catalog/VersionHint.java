package dev.featurestore.core.catalog;

import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.PrefixOperations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * The files path-based readers look for beside a table's metadata: {@code version-hint.text}
 * (the current version number, as Iceberg's {@code HadoopTables} writes it) and a copy of the
 * current metadata named {@code v<N>.metadata.json} ({@code v<N>.gz.metadata.json} when the table
 * compresses its metadata), the name {@code HadoopTables} and DuckDB's {@code iceberg_scan} derive
 * from the hint. The catalog's own {@code NNNNN-<uuid>.metadata.json} files stay the truth; these
 * are written after each commit, best effort.
 *
 * <p>On local disk each file is made under a temporary name and renamed into place, so a reader
 * never sees half a file, and the copy is a hard link to the committed metadata file (a byte copy
 * where links are not supported); on a bucket each is one PUT. The copy of the version before the previous
 * one is deleted, so a reader that read the previous hint a moment ago still finds its file. Two
 * writers committing at once may leave the hint one version behind; path-based readers look for
 * newer {@code v<N+1>} files themselves.
 */
public final class VersionHint {
  /** The hint file's name, as Iceberg's {@code HadoopTableOperations} names it. */
  public static final String FILE_NAME = "version-hint.text";

  /** Table property that turns the hint and copy off ({@code false}); on by default. */
  public static final String ENABLED_PROPERTY = "featurestore.version-hint.enabled";

  private VersionHint() {}

  /** The metadata folder of a metadata file location ({@code <table>/metadata}). */
  static String folder(String metadataFileLocation) {
    return metadataFileLocation.substring(0, metadataFileLocation.lastIndexOf('/'));
  }

  /** The version number in a catalog metadata file's name, or empty if the name has none. */
  static OptionalLong version(String metadataFileLocation) {
    return MetadataFiles.version(MetadataFiles.fileName(metadataFileLocation));
  }

  static String copyName(long version, String metadataFileLocation) {
    boolean gzip = TableMetadataParser.Codec.fromFileName(metadataFileLocation) == TableMetadataParser.Codec.GZIP;
    return "v" + version + (gzip ? ".gz" : "") + ".metadata.json";
  }

  /**
   * The hint and copy files that {@code metadata} (committed) keeps: the hint, the copy of its
   * version and of the previous one. Orphan-file removal must keep these.
   */
  public static List<String> keptFiles(TableMetadata metadata) {
    List<String> files = new ArrayList<>();
    String location = metadata.metadataFileLocation();
    if (location == null || location.lastIndexOf('/') < 0) {
      return files;
    }
    String folder = folder(location);
    files.add(folder + "/" + FILE_NAME);
    OptionalLong version = version(location);
    if (version.isPresent()) {
      files.add(folder + "/" + copyName(version.getAsLong(), location));
      if (version.getAsLong() >= 1) {
        files.add(folder + "/" + copyName(version.getAsLong() - 1, location));
      }
    }
    return files;
  }

  /**
   * Writes the copy of {@code metadata} (as committed, with its file location) and then the hint;
   * deletes the copy two versions back.
   *
   * @throws RuntimeException of the FileIO or an {@link java.io.UncheckedIOException} on failure
   *     (the caller warns; a commit never fails for its hint)
   */
  static void write(FileIO io, TableMetadata metadata) {
    String location = metadata.metadataFileLocation();
    OptionalLong parsed = version(location);
    if (parsed.isEmpty() || "false".equalsIgnoreCase(metadata.properties().get(ENABLED_PROPERTY))) {
      return; // not a name the catalog writes (a registered foreign file): nothing to number it by
    }
    long version = parsed.getAsLong();
    String folder = folder(location);
    String copy = folder + "/" + copyName(version, location);
    String hint = folder + "/" + FILE_NAME;
    byte[] hintBytes = Long.toString(version).getBytes(StandardCharsets.UTF_8);
    if (isLocal(location)) {
      Path dir = LocalFileIO.toPath(folder);
      // metadata files never change: the copy is a second name for the committed file (a hard
      // link), or a byte copy where links are not supported; either is cheaper than writing the
      // JSON again, which grows with every snapshot the table keeps
      Path committed = LocalFileIO.toPath(location);
      writeLocal(dir, copyName(version, location), out -> {
        try {
          Files.createLink(out, committed);
        } catch (UnsupportedOperationException | IOException e) {
          Files.copy(committed, out);
        }
      });
      writeLocal(dir, FILE_NAME, out -> Files.write(out, hintBytes));
    } else {
      TableMetadataParser.overwrite(metadata, io.newOutputFile(copy));
      try (PositionOutputStream out = io.newOutputFile(hint).createOrOverwrite()) {
        out.write(hintBytes);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("Cannot write version hint: " + hint, e);
      }
    }
    if (version >= 2) {
      io.deleteFile(folder + "/" + copyName(version - 2, location));
    }
  }

  /**
   * After a table was dropped with its files: deletes the hint and the copies, which no metadata
   * references, so Iceberg's purge leaves them. Best effort, as their writing.
   */
  static void deleteAll(FileIO io, TableMetadata metadata) {
    List<String> files = new ArrayList<>(keptFiles(metadata));
    String location = metadata.metadataFileLocation();
    java.util.Optional<org.apache.iceberg.io.SupportsPrefixOperations> listing = PrefixOperations.of(io);
    if (location != null && location.lastIndexOf('/') >= 0 && listing.isPresent()) {
      String folder = folder(location) + "/";
      for (org.apache.iceberg.io.FileInfo file : listing.get().listPrefix(folder)) {
        String name = MetadataFiles.fileName(file.location());
        if (isCopy(name) && !files.contains(file.location())) {
          files.add(file.location());
        }
      }
    }
    for (String file : files) {
      try {
        io.deleteFile(file);
      } catch (RuntimeException e) {
        // gone already, or the storage refused: nothing references it
      }
    }
  }

  /** True for the name of a copy this class writes ({@code v<N>.metadata.json}, {@code v<N>.gz.metadata.json}). */
  public static boolean isCopy(String fileName) {
    return COPY.matcher(fileName).matches();
  }

  private static final java.util.regex.Pattern COPY = java.util.regex.Pattern.compile("v\\d+(\\.gz)?\\.metadata\\.json");

  static boolean isLocal(String location) {
    return location.startsWith("/") || location.startsWith("file:");
  }

  private interface Writer {
    void write(Path temporary) throws IOException;
  }

  private static void writeLocal(Path dir, String name, Writer writer) {
    // hidden, and ending as the final name does (the metadata codec is read from the name)
    Path temporary = dir.resolve("." + UUID.randomUUID() + "-" + name);
    try {
      writer.write(temporary);
      try {
        Files.move(temporary, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot write " + name + ": " + dir, e);
    } finally {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException e) {
        // a leftover temporary file: orphan-file removal deletes it later
      }
    }
  }
}
