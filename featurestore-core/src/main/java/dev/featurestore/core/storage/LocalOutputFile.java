package dev.featurestore.core.storage;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/** A local file written through a buffered stream; parent directories are created on demand. */
final class LocalOutputFile implements OutputFile {
  private static final int BUFFER_SIZE = 256 * 1024;
  private final String location;
  private final Path path;

  LocalOutputFile(String location, Path path) {
    this.location = location;
    this.path = path;
  }

  @Override
  public PositionOutputStream create() {
    return open(StandardOpenOption.CREATE_NEW);
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    return open(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
  }

  private PositionOutputStream open(StandardOpenOption... options) {
    try {
      Path parent = path.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      OutputStream out = Files.newOutputStream(path, withWrite(options));
      return new ForwardingPositionOutputStream(new BufferedOutputStream(out, BUFFER_SIZE));
    } catch (FileAlreadyExistsException e) {
      throw new AlreadyExistsException(e, "File already exists: %s", location);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create file: " + location, e);
    }
  }

  private static StandardOpenOption[] withWrite(StandardOpenOption[] options) {
    StandardOpenOption[] all = new StandardOpenOption[options.length + 1];
    System.arraycopy(options, 0, all, 0, options.length);
    all[options.length] = StandardOpenOption.WRITE;
    return all;
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public InputFile toInputFile() {
    return new LocalInputFile(location, path, -1);
  }

  @Override
  public String toString() {
    return location;
  }
}
