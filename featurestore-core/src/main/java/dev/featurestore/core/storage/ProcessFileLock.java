package dev.featurestore.core.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * An exclusive lock on a local file ({@link FileChannel#tryLock()}), held by this process until
 * {@link #close()}: what keeps a second instance, in this or another process, off a directory one
 * instance owns (a CDC write-ahead log shard, a file cache, a DuckDB work directory).
 *
 * <p>Every lock this JVM holds is also recorded in one JVM-wide set, and a file in it is refused
 * before a channel is opened on it: closing any channel on a locked file releases every lock the
 * process holds on that file (POSIX record locks), so a refused second instance that opened and
 * closed its own channel would let another process in. Every lock on such files goes through this
 * class for that reason. Thread-safe.
 */
public final class ProcessFileLock implements AutoCloseable {
  /** How the lock file is opened. */
  public enum Open {
    /** Created if missing. */
    CREATE,
    /** Created new (fails if it exists), and locked only if it still exists once locked: a cleaner may delete it. */
    CREATE_NEW,
    /** Only an existing file ({@link java.nio.file.NoSuchFileException} otherwise). */
    EXISTING
  }

  /** The lock files this JVM holds (real paths); guarded by itself, as is every lock and release. */
  private static final Set<Path> HELD = new HashSet<>();

  private final Path key;
  private final FileChannel channel;
  private boolean released = false; // guarded by HELD

  private ProcessFileLock(Path key, FileChannel channel) {
    this.key = key;
    this.channel = channel;
  }

  /**
   * Locks {@code lockFile}; empty if this JVM or another process holds it.
   *
   * @throws IOException if the file cannot be opened or locked (for {@link Open#EXISTING}, a
   *     {@link java.nio.file.NoSuchFileException} if it does not exist)
   */
  public static Optional<ProcessFileLock> tryAcquire(Path lockFile, Open open) throws IOException {
    synchronized (HELD) {
      Path key = key(lockFile);
      if (HELD.contains(key)) {
        return Optional.empty(); // looked up before a channel is opened: closing ours would drop the holder's lock
      }
      FileChannel channel = switch (open) {
        case CREATE -> FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        case CREATE_NEW -> FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        case EXISTING -> FileChannel.open(lockFile, StandardOpenOption.WRITE);
      };
      try {
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // held in this JVM through a channel that did not come from here
        }
        if (lock == null || (open == Open.CREATE_NEW && !Files.exists(lockFile))) {
          channel.close();
          return Optional.empty();
        }
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      HELD.add(key);
      return Optional.of(new ProcessFileLock(key, channel));
    }
  }

  /** True if this JVM holds the lock on {@code lockFile} (false if the file is gone). */
  public static boolean isHeldHere(Path lockFile) {
    synchronized (HELD) {
      try {
        return HELD.contains(key(lockFile));
      } catch (IOException e) {
        return false;
      }
    }
  }

  /** Releases the lock. Safe to call twice. */
  @Override
  public void close() throws IOException {
    synchronized (HELD) {
      if (released) {
        return;
      }
      released = true;
      try {
        channel.close(); // releases the lock
      } finally {
        HELD.remove(key);
      }
    }
  }

  /** The file's real path: one key for every spelling of it (its directory must exist). */
  private static Path key(Path lockFile) throws IOException {
    Path absolute = lockFile.toAbsolutePath();
    return absolute.getParent().toRealPath().resolve(absolute.getFileName());
  }

  @Override
  public String toString() {
    return "ProcessFileLock{" + key + (released ? ", released" : "") + "}";
  }
}
