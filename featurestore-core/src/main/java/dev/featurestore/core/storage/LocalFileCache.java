package dev.featurestore.core.storage;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A local, size-bounded cache of remote data and delete files. Iceberg files are immutable (a
 * location is never rewritten), so an entry never goes stale and needs no validation. Files are
 * fetched through the store's FileIO in parallel, written to a temporary name and moved into
 * place, and evicted least recently used first. Files a running query holds (a {@link Lease}) are
 * never evicted; the cache may exceed its bound while they are held.
 *
 * <p>The cache owns its directory ({@link OwnedDirectory}) until {@link #close()}: adopting files
 * left by an earlier cache, deleting partial downloads and evicting are only safe when no other
 * cache (another process, or another store in this JVM, on the same store root) uses it.
 *
 * <p>Used by the DuckDB engine (remote files of a warehouse bucket it reads natively) and by
 * {@link TieredFileIO} (cold data files, for every reader including DuckDB). Thread-safe.
 */
public final class LocalFileCache implements AutoCloseable {
  private static final String SUFFIX = ".parquet";

  private final OwnedDirectory owned;
  private final Path directory;
  private final long maxBytes;
  private final ExecutorService fetchers;
  private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<String, CompletableFuture<Entry>> inflight = new LinkedHashMap<>();
  private long totalBytes = 0;
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong bytesFetched = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private boolean closed = false; // guarded by this

  private static final class Entry {
    final String key;
    final Path path;
    final long size;
    int pins = 0;

    Entry(String key, Path path, long size) {
      this.key = key;
      this.path = path;
      this.size = size;
    }
  }

  /**
   * The state of a cache.
   *
   * @param files files held
   * @param bytes bytes held
   * @param maxBytes the size bound
   * @param hits files served from the cache
   * @param misses files fetched
   * @param bytesFetched bytes fetched since the cache opened
   * @param evictions files evicted since the cache opened
   */
  public record Stats(long files, long bytes, long maxBytes, long hits, long misses, long bytesFetched, long evictions) {}

  /** Files held for one reader; closing releases them for eviction. */
  public final class Lease implements AutoCloseable {
    private final Map<String, Path> paths;
    private final List<Entry> held;
    private final int filesFromCache;
    private final int filesFetched;
    private final long bytesFetched;
    private boolean closed = false;

    Lease(Map<String, Path> paths, List<Entry> held, int fromCache, int fetched, long bytes) {
      this.paths = paths;
      this.held = held;
      this.filesFromCache = fromCache;
      this.filesFetched = fetched;
      this.bytesFetched = bytes;
    }

    /** Files of this lease that were already cached. */
    public int filesFromCache() {
      return filesFromCache;
    }

    /** Files of this lease fetched for it. */
    public int filesFetched() {
      return filesFetched;
    }

    /** Bytes fetched for this lease. */
    public long bytesFetched() {
      return bytesFetched;
    }

    /** The local copy of {@code location}, valid until the lease is closed. */
    public Path path(String location) {
      Path path = paths.get(location);
      if (path == null) {
        throw new IllegalStateException("Cannot find cached file: not part of this lease: " + location);
      }
      return path;
    }

    @Override
    public void close() {
      synchronized (LocalFileCache.this) {
        if (closed) {
          return;
        }
        closed = true;
        for (Entry entry : held) {
          entry.pins--;
        }
        evict();
      }
    }
  }

  /**
   * Opens the cache over {@code directory}, which it owns until closed (see
   * {@link #LocalFileCache(OwnedDirectory, long, ExecutorService)}).
   *
   * @throws dev.featurestore.InvalidStateException if another open cache owns the directory
   *     ({@code Cannot open file cache: directory in use by another store: <dir>})
   * @throws StorageException if the directory cannot be created, locked or read
   */
  public LocalFileCache(Path directory, long maxBytes, ExecutorService fetchers) {
    this(OwnedDirectory.claim(directory, "file cache"), maxBytes, fetchers);
  }

  /**
   * Opens the cache over {@code directory}, owned by this cache from now on (released, and deleted
   * if private, by {@link #close()}; also when this constructor fails). Files left by an earlier
   * cache are adopted and partial downloads deleted: no other cache can be using them. Fetches run
   * on {@code fetchers}.
   *
   * @throws StorageException if the directory cannot be read
   */
  public LocalFileCache(OwnedDirectory directory, long maxBytes, ExecutorService fetchers) {
    this.owned = directory;
    this.directory = directory.path();
    this.maxBytes = maxBytes;
    this.fetchers = fetchers;
    try {
      List<Path> existing;
      try (Stream<Path> files = Files.list(this.directory)) {
        existing = files.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).toList();
      }
      // oldest first, so the most recently written are the most recently used
      List<Path> sorted = new ArrayList<>(existing);
      sorted.sort(Comparator.comparing(LocalFileCache::modified));
      for (Path path : sorted) {
        String name = path.getFileName().toString();
        Entry entry = new Entry(name.substring(0, name.length() - SUFFIX.length()), path, Files.size(path));
        entries.put(entry.key, entry);
        totalBytes += entry.size;
      }
      // left by a cache that ended without finishing them: this cache owns the directory
      try (Stream<Path> files = Files.list(this.directory)) {
        files.filter(p -> p.getFileName().toString().endsWith(".part")).forEach(LocalFileCache::deleteQuietly);
      }
      synchronized (this) {
        evict();
      }
    } catch (IOException | RuntimeException e) {
      directory.close();
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw new StorageException("Cannot open file cache: " + e.getMessage() + ": " + this.directory, e);
    }
  }

  /**
   * Releases the directory for another cache (a private one is deleted). Leases still open keep
   * their paths until closed, except in a private directory; acquiring after close fails. Safe to
   * call twice.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    owned.close();
  }

  public Path directory() {
    return directory;
  }

  /**
   * Fetches what is missing through {@code io} (in parallel) and holds every file until the lease
   * is closed.
   *
   * @throws dev.featurestore.StorageException if a file cannot be fetched; nothing is held then
   */
  public Lease acquire(List<String> locations, FileIO io) {
    Map<String, CompletableFuture<Entry>> futures = new LinkedHashMap<>();
    Map<String, Boolean> fetchedHere = new LinkedHashMap<>();
    List<Entry> held = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        throw new InvalidStateException("Cannot read through file cache: cache is closed: " + directory);
      }
      for (String location : locations) {
        if (futures.containsKey(location)) {
          continue;
        }
        String key = key(location);
        Entry entry = entries.get(key);
        if (entry != null) {
          entry.pins++;
          held.add(entry);
          futures.put(location, CompletableFuture.completedFuture(entry));
          fetchedHere.put(location, false);
          hits.incrementAndGet();
          continue;
        }
        CompletableFuture<Entry> future = inflight.get(key);
        if (future == null) {
          future = CompletableFuture.supplyAsync(() -> fetch(key, location, io), fetchers);
          inflight.put(key, future);
          misses.incrementAndGet();
          fetchedHere.put(location, true);
        } else {
          fetchedHere.put(location, true);
        }
        futures.put(location, future);
      }
    }
    Map<String, Path> paths = new LinkedHashMap<>();
    int fromCache = 0;
    int fetched = 0;
    long bytes = 0;
    RuntimeException failure = null;
    for (Map.Entry<String, CompletableFuture<Entry>> e : futures.entrySet()) {
      if (!fetchedHere.get(e.getKey())) {
        Entry entry = e.getValue().join();
        paths.put(e.getKey(), entry.path);
        fromCache++;
        continue;
      }
      try {
        Entry entry = e.getValue().join();
        synchronized (this) {
          inflight.remove(entry.key);
          if (!entries.containsKey(entry.key)) {
            entries.put(entry.key, entry);
            totalBytes += entry.size;
          }
          Entry current = entries.get(entry.key);
          current.pins++;
          held.add(current);
          paths.put(e.getKey(), current.path);
        }
        fetched++;
        bytes += entry.size;
      } catch (CompletionException ex) {
        synchronized (this) {
          inflight.remove(key(e.getKey()));
        }
        if (failure == null) {
          failure = ex.getCause() instanceof RuntimeException re ? re : new StorageException(
              "Cannot fetch file into cache: " + ex.getCause() + ": " + e.getKey(), ex.getCause());
        }
      }
    }
    Lease lease = new Lease(paths, held, fromCache, fetched, bytes);
    if (failure != null) {
      lease.close();
      throw failure;
    }
    synchronized (this) {
      evict();
    }
    return lease;
  }

  private Entry fetch(String key, String location, FileIO io) {
    Path target = directory.resolve(key + SUFFIX);
    Path part = directory.resolve(key + "." + UUID.randomUUID() + ".part");
    try (SeekableInputStream in = io.newInputFile(location).newStream()) {
      long size = Files.copy((InputStream) in, part);
      Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      bytesFetched.addAndGet(size);
      return new Entry(key, target, size);
    } catch (IOException | UncheckedIOException e) {
      deleteQuietly(part);
      throw new StorageException("Cannot fetch file into cache: " + e.getMessage() + ": " + location, e);
    } catch (RuntimeException e) {
      deleteQuietly(part);
      throw new StorageException("Cannot fetch file into cache: " + e.getMessage() + ": " + location, e);
    }
  }

  /**
   * Evicts least recently used, unheld entries until the cache fits; nothing once closed (the
   * directory may be another cache's by then). Call holding the lock.
   */
  private void evict() {
    if (closed) {
      return;
    }
    Iterator<Entry> it = entries.values().iterator();
    while (totalBytes > maxBytes && it.hasNext()) {
      Entry entry = it.next();
      if (entry.pins > 0) {
        continue;
      }
      it.remove();
      totalBytes -= entry.size;
      evictions.incrementAndGet();
      deleteQuietly(entry.path);
    }
  }

  public synchronized Stats stats() {
    return new Stats(entries.size(), totalBytes, maxBytes, hits.get(), misses.get(), bytesFetched.get(),
        evictions.get());
  }

  /** The cache key of a location (a hash: locations may be long or hold any character). */
  static String key(String location) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(location.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static java.nio.file.attribute.FileTime modified(Path path) {
    try {
      return Files.getLastModifiedTime(path);
    } catch (IOException e) {
      return java.nio.file.attribute.FileTime.fromMillis(0);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a leftover file is re-used or cleaned on the next open
    }
  }
}
