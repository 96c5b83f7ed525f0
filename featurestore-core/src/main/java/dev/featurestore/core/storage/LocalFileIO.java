package dev.featurestore.core.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pure-NIO {@link org.apache.iceberg.io.FileIO} for local disk: buffered writes, positional
 * reads, prefix listing and bulk delete. Unlike Hadoop's local file system it writes no
 * {@code .crc} side files, which halves commit latency.
 *
 * <p>Accepts plain absolute paths and {@code file:} URIs ({@code file:/a/b}, {@code file:///a/b}).
 * Public so other engines can load it by class name ({@code io-impl}); not part of the
 * library's compatibility promise.
 */
public final class LocalFileIO implements SupportsPrefixOperations, SupportsBulkOperations {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(LocalFileIO.class);

  private Map<String, String> properties = Map.of();

  public LocalFileIO() {}

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String location) {
    return new LocalInputFile(location, toPath(location), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new LocalInputFile(location, toPath(location), length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutputFile(location, toPath(location));
  }

  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(toPath(location));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete file: " + location, e);
    }
  }

  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    int failures = 0;
    for (String location : locations) {
      try {
        Files.deleteIfExists(toPath(location));
      } catch (IOException | RuntimeException e) {
        failures++;
        LOG.warn("Cannot delete file: {}", location, e);
      }
    }
    if (failures > 0) {
      throw new BulkDeletionFailureException(failures);
    }
  }

  /**
   * Lists files whose location starts with {@code prefix}. A prefix naming a directory lists it
   * recursively; otherwise the prefix's parent directory is walked and filtered by name.
   */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path path = toPath(prefix);
    Path walkRoot = Files.isDirectory(path) ? path : path.getParent();
    if (walkRoot == null || !Files.isDirectory(walkRoot)) {
      return List.of();
    }
    String pathPrefix = path.toString();
    boolean uriForm = prefix.startsWith("file:");
    List<FileInfo> files = new ArrayList<>();
    try {
      // walkFileTree, not Files.walk: a file or directory deleted between reading its directory and
      // reading its attributes (a commit trimming old metadata files while orphan removal lists) is
      // skipped, where Files.walk's stream throws UncheckedIOException(NoSuchFileException)
      Files.walkFileTree(walkRoot, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          if (!file.toString().startsWith(pathPrefix)) {
            return FileVisitResult.CONTINUE;
          }
          BasicFileAttributes target = attrs;
          if (attrs.isSymbolicLink()) {
            try {
              target = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
              return FileVisitResult.CONTINUE; // a dangling link, or deleted while listing
            }
          }
          if (target.isRegularFile()) {
            String location = uriForm ? file.toUri().toString() : file.toString();
            files.add(new FileInfo(location, target.size(), target.lastModifiedTime().toMillis()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (vanished(e)) {
            return FileVisitResult.CONTINUE; // deleted while listing
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
          if (e != null && !vanished(e)) {
            throw e;
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      if (vanished(e)) {
        return List.of(); // the directory itself went while listing
      }
      throw new UncheckedIOException("Cannot list prefix: " + prefix, e);
    }
    return files;
  }

  /** Whether a listing failed because a file or directory was deleted while it ran. */
  private static boolean vanished(IOException e) {
    return e instanceof NoSuchFileException;
  }

  /** Deletes every file under {@code prefix} (recursively for a directory), then empty directories. */
  @Override
  public void deletePrefix(String prefix) {
    Path path = toPath(prefix);
    if (Files.isDirectory(path)) {
      try {
        // files first, each directory after its contents; what another process deletes meanwhile is skipped
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (vanished(e)) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !vanished(e)) {
              throw e;
            }
            try {
              Files.deleteIfExists(dir);
            } catch (DirectoryNotEmptyException notEmpty) {
              // a concurrent writer added a file: leave it
            }
            return FileVisitResult.CONTINUE;
          }
        });
      } catch (IOException e) {
        if (!vanished(e)) {
          throw new UncheckedIOException("Cannot delete prefix: " + prefix, e);
        }
      }
    } else {
      List<String> locations = new ArrayList<>();
      listPrefix(prefix).forEach(f -> locations.add(f.location()));
      deleteFiles(locations);
    }
  }

  /** Converts a location (absolute path or {@code file:} URI) to a path. */
  public static Path toPath(String location) {
    if (location == null || location.isEmpty()) {
      throw new IllegalArgumentException("Cannot use location: empty");
    }
    if (location.startsWith("file:")) {
      String rest = location.substring("file:".length());
      if (rest.startsWith("//") && !rest.startsWith("///")) {
        // file://host/path: only an empty or local host is supported
        URI uri = URI.create(location);
        if (uri.getHost() != null && !"localhost".equals(uri.getHost())) {
          throw new IllegalArgumentException("Cannot use location: remote host in file URI: " + location);
        }
        return Paths.get(uri.getPath());
      }
      while (rest.startsWith("//")) {
        rest = rest.substring(1);
      }
      return Paths.get(rest);
    }
    if (location.contains("://")) {
      throw new IllegalArgumentException("Cannot use location with local storage: unsupported scheme: " + location);
    }
    return Paths.get(location);
  }

  @Override
  public String toString() {
    return "LocalFileIO";
  }
}
