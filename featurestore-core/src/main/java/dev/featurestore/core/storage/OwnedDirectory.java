package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
 * <p>A lock is held by the process (the operating system) and, inside the JVM, recorded in a
 * JVM-wide set: a second claim in the same JVM is refused before it opens a channel on the lock
 * file, because closing any channel on a file releases every lock the process holds on it (POSIX
 * record locks). Main lock files are never deleted (a claimer may hold a channel on the old file);
 * private lock files are checked to still exist once locked. Thread-safe.
 */
public final class OwnedDirectory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnedDirectory.class);
  static final String LOCK_FILE = ".lock";
  static final String PRIVATE = "private";
  private static final String LOCK_SUFFIX = ".lock";
  private static final int PRIVATE_ATTEMPTS = 10;

  /** The lock files this JVM holds (real paths); guarded by itself, as is every lock and unlock. */
  private static final Set<Path> HELD = new HashSet<>();

  private final Path directory;
  private final Path lockFile;
  private final Path key;
  private final FileChannel channel;
  private final FileLock lock;
  private final boolean deleteOnClose;
  private boolean closed = false;

  private OwnedDirectory(Path directory, Path lockFile, Path key, FileChannel channel, FileLock lock,
      boolean deleteOnClose) {
    this.directory = directory;
    this.lockFile = lockFile;
    this.key = key;
    this.channel = channel;
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
    synchronized (HELD) {
      if (closed) {
        return;
      }
      closed = true;
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
          channel.close(); // releases the lock
        } catch (IOException e) {
          LOG.warn("Cannot release directory lock: {}: {}", e.getMessage(), lockFile);
        }
        HELD.remove(key);
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
    synchronized (HELD) {
      FileChannel channel = null;
      try {
        // looked up before a channel is opened: closing ours would drop the holder's lock
        Path key = lockFile.getParent().toRealPath().resolve(lockFile.getFileName());
        if (HELD.contains(key)) {
          return Optional.empty();
        }
        channel = isNew
            ? FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
            : FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // held in this JVM through a channel of another class
        }
        if (lock == null || (isNew && !Files.exists(lockFile))) {
          channel.close();
          return Optional.empty();
        }
        HELD.add(key);
        return Optional.of(new OwnedDirectory(dir, lockFile, key, channel, lock, deleteOnClose));
      } catch (IOException e) {
        closeQuietly(channel);
        throw new StorageException("Cannot open " + thing + ": cannot lock directory: " + e.getMessage() + ": " + dir, e);
      }
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
      synchronized (HELD) {
        if (isHeldHere(lockFile)) {
          continue;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
          FileLock lock;
          try {
            lock = channel.tryLock();
          } catch (OverlappingFileLockException e) {
            lock = null;
          }
          if (lock == null) {
            continue; // its instance is open in another process
          }
          if (deleteTree(stale)) {
            deleteQuietly(lockFile);
            LOG.info("Deleted the private directory of a store instance that ended without closing it: {}", stale);
          }
        } catch (NoSuchFileException e) {
          // closed or cleaned meanwhile
        } catch (IOException e) {
          LOG.warn("Cannot check private directory: {}: {}", e.getMessage(), stale);
        }
      }
    }
  }

  private static boolean isHeldHere(Path lockFile) {
    try {
      return HELD.contains(lockFile.getParent().toRealPath().resolve(lockFile.getFileName()));
    } catch (IOException e) {
      return false; // gone
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

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing was locked through it
      }
    }
  }
}
