package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local directory that one open instance (a file cache, a DuckDB engine) owns alone, held by an
 * exclusive lock ({@link FileChannel#tryLock()}) on its {@code .lock} file until {@link #close()}.
 * Several processes, or several stores in one JVM, may open the same store root; what one instance
 * does to its directory on open and close (adopting and deleting partial files, evicting cached
 * files another instance's query reads by path) is only safe if no other instance uses it.
 *
 * <ul>
 *   <li>{@link #claim} is for a directory the user named: in use, it fails with
 *       {@link InvalidStateException} {@code Cannot open <thing>: directory in use by another
 *       store: <dir>}.
 *   <li>{@link #claimOrPrivate} is for a default directory: in use, the instance gets a private
 *       directory {@code <dir>/private/<id>/} (locked by {@code <dir>/private/<id>.lock}), deleted
 *       when it is closed.
 * </ul>
 *
 * Both delete the private directories of instances that ended without closing them (a killed
 * process): a private directory whose lock is free is stale.
 *
 * <p>A lock is a {@link ProcessFileLock}: held by the process and refused to a second claim in
 * the same JVM before it opens a channel on the lock file. Main lock files are never deleted (a claimer may hold a channel on the old file);
 * private lock files are checked to still exist once locked. Thread-safe.
 */
public final class OwnedDirectory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnedDirectory.class);
  static final String LOCK_FILE = ".lock";
  static final String PRIVATE = "private";
  private static final String LOCK_SUFFIX = ".lock";
  private static final int PRIVATE_ATTEMPTS = 10;

  private final Path directory;
  private final Path lockFile;
  private final ProcessFileLock lock;
  private final boolean deleteOnClose;
  private boolean closed = false;

  private OwnedDirectory(Path directory, Path lockFile, ProcessFileLock lock, boolean deleteOnClose) {
    this.directory = directory;
    this.lockFile = lockFile;
    this.lock = lock;
    this.deleteOnClose = deleteOnClose;
  }

  /**
   * Owns {@code directory} (created if missing), a directory the user named.
   *
   * @param thing what is opened, for the message: "DuckDB engine", "cold cache"
   * @throws InvalidStateException if another instance (in this or another process) owns it
   * @throws StorageException if it cannot be created or locked
   */
  public static OwnedDirectory claim(Path directory, String thing) {
    Path dir = prepare(directory, thing);
    Optional<OwnedDirectory> owned = tryLock(dir, dir.resolve(LOCK_FILE), false, false, thing);
    if (owned.isEmpty()) {
      throw new InvalidStateException("Cannot open " + thing + ": directory in use by another store: " + dir);
    }
    removeStalePrivate(dir);
    return owned.get();
  }

  /**
   * Owns {@code directory} (created if missing), a default directory; if another instance owns
   * it, owns a new private directory under it instead ({@link #isPrivate()}), deleted on close.
   *
   * @param thing what is opened, for messages: "DuckDB engine", "cold cache"
   * @throws StorageException if no directory can be created or locked
   */
  public static OwnedDirectory claimOrPrivate(Path directory, String thing) {
    Path dir = prepare(directory, thing);
    Optional<OwnedDirectory> owned = tryLock(dir, dir.resolve(LOCK_FILE), false, false, thing);
    removeStalePrivate(dir);
    if (owned.isPresent()) {
      return owned.get();
    }
    Path privateRoot = dir.resolve(PRIVATE);
    createDirectories(privateRoot, thing);
    for (int attempt = 0; attempt < PRIVATE_ATTEMPTS; attempt++) {
      String id = UUID.randomUUID().toString();
      Optional<OwnedDirectory> mine = tryLock(privateRoot.resolve(id), privateRoot.resolve(id + LOCK_SUFFIX), true, false, thing);
      if (mine.isPresent()) {
        try {
          createDirectories(mine.get().directory, thing);
        } catch (RuntimeException e) {
          mine.get().close();
          throw e;
        }
        LOG.info("Opened {} in a private directory: {} is in use by another store: {}", thing, dir,
            mine.get().directory);
        return mine.get();
      }
    }
    throw new StorageException("Cannot open " + thing + ": cannot lock a private directory: " + privateRoot);
  }

  /** Owns a new temporary directory (prefix {@code prefix}), deleted on close. */
  public static OwnedDirectory temporary(String prefix, String thing) {
    Path dir;
    try {
      dir = Files.createTempDirectory(prefix).toAbsolutePath().normalize();
    } catch (IOException e) {
      throw new StorageException("Cannot open " + thing + ": cannot create temporary directory: " + e.getMessage(), e);
    }
    return tryLock(dir, dir.resolve(LOCK_FILE), false, true, thing)
        .orElseThrow(() -> new StorageException("Cannot open " + thing + ": cannot lock new directory: " + dir));
  }

  /** The directory (absolute, normalized). */
  public Path path() {
    return directory;
  }

  /** True if this is a private directory, used because the directory asked for was in use. */
  public boolean isPrivate() {
    return !lockFile.getParent().equals(directory);
  }

  /** Releases the directory; a private or temporary one is deleted first. Safe to call twice. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      if (isPrivate()) {
        // while locked, so no cleaner sees it free and half deleted
        if (deleteTree(directory)) {
          deleteQuietly(lockFile);
        }
      } else if (deleteOnClose) {
        deleteTree(directory);
      }
    } finally {
      try {
        lock.close();
      } catch (IOException e) {
        LOG.warn("Cannot release directory lock: {}: {}", e.getMessage(), lockFile);
      }
    }
  }

  @Override
  public String toString() {
    return "OwnedDirectory{" + directory + (isPrivate() ? ", private" : "") + "}";
  }

  private static Path prepare(Path directory, String thing) {
    requireNonNull(directory, "directory is null");
    requireNonNull(thing, "thing is null");
    Path dir = directory.toAbsolutePath().normalize();
    createDirectories(dir, thing);
    return dir;
  }

  private static void createDirectories(Path dir, String thing) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException("Cannot open " + thing + ": cannot create directory: " + e.getMessage() + ": " + dir, e);
    }
  }

  /**
   * Locks {@code lockFile} for {@code dir}; empty if another instance holds it. A private lock
   * file is created new and must still exist once locked (a cleaner may have deleted it between).
   */
  private static Optional<OwnedDirectory> tryLock(Path dir, Path lockFile, boolean isNew, boolean deleteOnClose,
      String thing) {
    try {
      return ProcessFileLock.tryAcquire(lockFile, isNew ? ProcessFileLock.Open.CREATE_NEW : ProcessFileLock.Open.CREATE)
          .map(lock -> new OwnedDirectory(dir, lockFile, lock, deleteOnClose));
    } catch (IOException e) {
      throw new StorageException("Cannot open " + thing + ": cannot lock directory: " + e.getMessage() + ": " + dir, e);
    }
  }

  /** Deletes every private directory under {@code dir} whose lock is free (its instance ended). */
  private static void removeStalePrivate(Path dir) {
    Path privateRoot = dir.resolve(PRIVATE);
    if (!Files.isDirectory(privateRoot)) {
      return;
    }
    List<Path> lockFiles;
    try (Stream<Path> files = Files.list(privateRoot)) {
      lockFiles = files.filter(p -> p.getFileName().toString().endsWith(LOCK_SUFFIX)).toList();
    } catch (IOException e) {
      LOG.warn("Cannot list private directories: {}: {}", e.getMessage(), privateRoot);
      return;
    }
    for (Path lockFile : lockFiles) {
      String name = lockFile.getFileName().toString();
      Path stale = privateRoot.resolve(name.substring(0, name.length() - LOCK_SUFFIX.length()));
      try {
        Optional<ProcessFileLock> lock = ProcessFileLock.tryAcquire(lockFile, ProcessFileLock.Open.EXISTING);
        if (lock.isEmpty()) {
          continue; // its instance is open, in this process or another
        }
        try (ProcessFileLock held = lock.get()) {
          if (deleteTree(stale)) {
            deleteQuietly(lockFile);
            LOG.info("Deleted the private directory of a store instance that ended without closing it: {}", stale);
          }
        }
      } catch (NoSuchFileException e) {
        // closed or cleaned meanwhile
      } catch (IOException e) {
        LOG.warn("Cannot check private directory: {}: {}", e.getMessage(), stale);
      }
    }
  }

  /** Deletes {@code dir} and everything under it; false if something could not be deleted. */
  private static boolean deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
      return true;
    } catch (IOException | java.io.UncheckedIOException e) {
      LOG.warn("Cannot delete directory: {}: {}", e.getMessage(), dir);
      return false;
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a leftover lock file is harmless: a later claim deletes it
    }
  }
}
