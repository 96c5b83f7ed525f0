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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
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
   * recursively; otherwise the prefix's parent directory is walked and filtered by name. A file or
   * directory deleted or renamed away while it is listed (a commit's temporary file, a concurrent
   * delete) is left out, as if it had gone before the listing: {@link Files#walk} would fail the
   * whole listing on it, and a caller such as the cleanup after a lost create would do nothing.
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
      Files.walkFileTree(walkRoot, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path p, BasicFileAttributes linkAttrs) throws IOException {
          if (!p.toString().startsWith(pathPrefix)) {
            return FileVisitResult.CONTINUE;
          }
          BasicFileAttributes attrs = linkAttrs;
          if (attrs.isSymbolicLink()) {
            try {
              attrs = Files.readAttributes(p, BasicFileAttributes.class); // the link's target, as before
            } catch (NoSuchFileException e) {
              return FileVisitResult.CONTINUE; // dangling, or its target deleted while listing
            }
          }
          if (attrs.isRegularFile()) {
            String location = uriForm ? p.toUri().toString() : p.toString();
            files.add(new FileInfo(location, attrs.size(), attrs.lastModifiedTime().toMillis()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path p, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE; // deleted or renamed away while listing
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) {
            throw e;
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list prefix: " + prefix, e);
    }
    return files;
  }

  /** Deletes every file under {@code prefix} (recursively for a directory), then empty directories. */
  @Override
  public void deletePrefix(String prefix) {
    Path path = toPath(prefix);
    if (Files.isDirectory(path)) {
      try (Stream<Path> stream = Files.walk(path)) {
        for (Path p : (Iterable<Path>) stream.sorted(Comparator.reverseOrder())::iterator) {
          try {
            Files.deleteIfExists(p);
          } catch (DirectoryNotEmptyException e) {
            // a concurrent writer added a file: leave it
          }
        }
      } catch (NoSuchFileException e) {
        // already gone
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot delete prefix: " + prefix, e);
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
