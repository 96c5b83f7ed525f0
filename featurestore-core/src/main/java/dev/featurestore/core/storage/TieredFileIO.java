package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The FileIO of a store with a cold tier: routes every location under the cold warehouse
 * ({@code s3://<cold bucket>/<prefix>warehouse/}, {@code s3a://} too) to the cold bucket's FileIO and
 * everything else to the hot FileIO (local disk or the warehouse bucket).
 *
 * <p>Cold reads go through a size-bounded local {@link LocalFileCache} of whole files: data files are
 * immutable, so a cached copy never goes stale. A hot location under the hot warehouse whose file
 * is gone (moved to cold by tiering; older snapshots still name the hot path) is read from its
 * cold counterpart, at the same path relative to the warehouse. Metadata is always written hot.
 *
 * <p>It implements prefix operations, refused when the tier a prefix is in cannot list: whether it
 * can is asked with {@link PrefixOperations#of}.
 *
 * <p>Thread-safe. Closing it stops its fetch threads and releases the cache directory; the hot and
 * cold FileIOs belong to the caller.
 */
public final class TieredFileIO implements SupportsPrefixOperations, SupportsBulkOperations {
  private static final long serialVersionUID = 1L;

  private final transient FileIO hot;
  private final transient FileIO cold;
  private final String hotWarehouse;
  private final boolean hotIsLocal;
  private final String coldWarehouse;
  private final transient LocalFileCache cache;
  private final transient ExecutorService fetchers;

  private TieredFileIO(FileIO hot, FileIO cold, String hotWarehouse, String coldWarehouse, LocalFileCache cache,
      ExecutorService fetchers) {
    this.hot = hot;
    this.cold = cold;
    this.hotIsLocal = isLocal(hotWarehouse);
    this.hotWarehouse = trimSlash(hotIsLocal ? LocalFileIO.toPath(hotWarehouse).toAbsolutePath().normalize().toString()
        : s3(hotWarehouse));
    this.coldWarehouse = trimSlash(s3(coldWarehouse));
    this.cache = cache;
    this.fetchers = fetchers;
  }

  /**
   * A tiered FileIO over {@code hot} (holding {@code hotWarehouse}) and {@code cold} (holding
   * {@code coldWarehouse}), caching cold files in {@code cacheDirectory} up to {@code maxCacheBytes};
   * the cache owns that directory until this FileIO is closed.
   *
   * @throws dev.featurestore.InvalidStateException if another open cache owns the directory
   *     ({@code Cannot open cold cache: directory in use by another store: <dir>})
   */
  public static TieredFileIO open(FileIO hot, FileIO cold, String hotWarehouse, String coldWarehouse,
      Path cacheDirectory, long maxCacheBytes) {
    requireNonNull(cacheDirectory, "cacheDirectory is null");
    checkCold(coldWarehouse);
    return open(hot, cold, hotWarehouse, coldWarehouse, OwnedDirectory.claim(cacheDirectory, "cold cache"), maxCacheBytes);
  }

  /**
   * As {@link #open(FileIO, FileIO, String, String, Path, long)} over a directory already owned
   * ({@link OwnedDirectory#claimOrPrivate} for the default one), which this FileIO closes with
   * itself, or at once if it cannot open.
   */
  public static TieredFileIO open(FileIO hot, FileIO cold, String hotWarehouse, String coldWarehouse,
      OwnedDirectory cacheDirectory, long maxCacheBytes) {
    requireNonNull(cacheDirectory, "cacheDirectory is null");
    ExecutorService fetchers = null;
    try {
      requireNonNull(hot, "hot is null");
      requireNonNull(cold, "cold is null");
      requireNonNull(hotWarehouse, "hotWarehouse is null");
      checkCold(coldWarehouse);
      AtomicInteger n = new AtomicInteger();
      fetchers = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "featurestore-cold-fetch-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      LocalFileCache cache = new LocalFileCache(cacheDirectory, maxCacheBytes, fetchers);
      return new TieredFileIO(hot, cold, hotWarehouse, coldWarehouse, cache, fetchers);
    } catch (RuntimeException e) {
      if (fetchers != null) {
        fetchers.shutdownNow();
      }
      cacheDirectory.close();
      throw e;
    }
  }

  private static void checkCold(String coldWarehouse) {
    requireNonNull(coldWarehouse, "coldWarehouse is null");
    if (!coldWarehouse.startsWith("s3://") && !coldWarehouse.startsWith("s3a://")) {
      throw new IllegalArgumentException("Cannot open tiered storage: cold warehouse is not an s3 location: " + coldWarehouse);
    }
  }

  /** True if {@code location} is in the cold bucket. */
  public boolean isCold(String location) {
    return s3(location).startsWith(coldWarehouse + "/");
  }

  /** The cold location of a hot file under the hot warehouse; empty for any other location. */
  public Optional<String> coldLocation(String hotLocation) {
    if (isCold(hotLocation)) {
      return Optional.empty();
    }
    String normalized;
    try {
      normalized = hotIsLocal ? LocalFileIO.toPath(hotLocation).toAbsolutePath().normalize().toString() : s3(hotLocation);
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // another scheme: not ours to map
    }
    if (!normalized.startsWith(hotWarehouse + "/")) {
      return Optional.empty();
    }
    return Optional.of(coldWarehouse + normalized.substring(hotWarehouse.length()));
  }

  /** The hot location a cold file was moved from (same path relative to the warehouse). */
  public Optional<String> hotLocation(String coldLocation) {
    String normalized = s3(coldLocation);
    if (!normalized.startsWith(coldWarehouse + "/")) {
      return Optional.empty();
    }
    return Optional.of(hotWarehouse + normalized.substring(coldWarehouse.length()));
  }

  /** The FileIO of the hot location. */
  public FileIO hot() {
    return hot;
  }

  /** The FileIO of the cold bucket (uncached). */
  public FileIO cold() {
    return cold;
  }

  /** The cold cache's statistics. */
  public LocalFileCache.Stats cacheStats() {
    return cache.stats();
  }

  /** The directory of the cold cache (absolute, normalized). */
  public Path cacheDirectory() {
    return cache.directory();
  }

  /**
   * Holds {@code coldLocations} in the cold cache, fetching what is missing from the cold bucket,
   * until the lease is closed; for readers (the DuckDB engine) that read the local copies
   * themselves, so a cold file is cached once however it is read. Hits and fetches count in
   * {@link #cacheStats()}.
   *
   * @throws IllegalArgumentException if a location is not in the cold bucket
   * @throws dev.featurestore.StorageException if a file cannot be fetched; nothing is held then
   */
  public LocalFileCache.Lease leaseCold(List<String> coldLocations) {
    for (String location : coldLocations) {
      if (!isCold(location)) {
        throw new IllegalArgumentException("Cannot lease cold file: not in the cold bucket: " + location);
      }
    }
    return cache.acquire(coldLocations, cold);
  }

  @Override
  public InputFile newInputFile(String location) {
    return newInputFile(location, -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    if (isCold(location)) {
      return new CachedColdFile(location, length);
    }
    InputFile hotFile = length >= 0 ? hot.newInputFile(location, length) : hot.newInputFile(location);
    if (location.contains("/metadata/")) {
      return hotFile; // metadata is never moved
    }
    Optional<String> coldCounterpart = coldLocation(location);
    return coldCounterpart.isPresent() ? new HotOrColdFile(hotFile, coldCounterpart.get(), length) : hotFile;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return isCold(location) ? cold.newOutputFile(location) : hot.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    if (isCold(location)) {
      cold.deleteFile(location);
    } else {
      hot.deleteFile(location);
    }
  }

  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    List<String> hotFiles = new ArrayList<>();
    List<String> coldFiles = new ArrayList<>();
    for (String location : locations) {
      (isCold(location) ? coldFiles : hotFiles).add(location);
    }
    int failures = deleteAll(hot, hotFiles) + deleteAll(cold, coldFiles);
    if (failures > 0) {
      throw new BulkDeletionFailureException(failures);
    }
  }

  private static int deleteAll(FileIO io, List<String> locations) {
    if (locations.isEmpty()) {
      return 0;
    }
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(locations);
        return 0;
      } catch (BulkDeletionFailureException e) {
        return e.numberFailedObjects();
      }
    }
    int failures = 0;
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        failures++;
      }
    }
    return failures;
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    return prefixOps(prefix).listPrefix(prefix);
  }

  @Override
  public void deletePrefix(String prefix) {
    prefixOps(prefix).deletePrefix(prefix);
  }

  /** Whether both tiers can list and delete by prefix ({@link PrefixOperations#of}). */
  boolean supportsPrefixOperations() {
    return PrefixOperations.of(hot).isPresent() && PrefixOperations.of(cold).isPresent();
  }

  private SupportsPrefixOperations prefixOps(String prefix) {
    FileIO io = isCold(prefix) ? cold : hot;
    Optional<SupportsPrefixOperations> ops = PrefixOperations.of(io);
    if (ops.isPresent()) {
      return ops.get();
    }
    throw new UnsupportedOperationException("Cannot list or delete by prefix: " + io.getClass().getSimpleName()
        + " does not support it: " + prefix);
  }

  @Override
  public Map<String, String> properties() {
    return hot.properties();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    // built with open(...): both FileIOs are initialized by their owner
  }

  @Override
  public void close() {
    fetchers.shutdownNow();
    cache.close();
  }

  @Override
  public String toString() {
    return "TieredFileIO{hot=" + hotWarehouse + ", cold=" + coldWarehouse + ", cache=" + cache.directory() + "}";
  }

  private static boolean isLocal(String location) {
    return location.startsWith("file:") || !location.contains("://");
  }

  private static String s3(String location) {
    return location.startsWith("s3a://") ? "s3://" + location.substring("s3a://".length()) : location;
  }

  private static String trimSlash(String location) {
    String s = location;
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /** A cold file read through the cache: the whole file is fetched once, then read locally. */
  private final class CachedColdFile implements InputFile {
    private final String location;
    private long length;

    CachedColdFile(String location, long length) {
      this.location = location;
      this.length = length;
    }

    @Override
    public long getLength() {
      if (length < 0) {
        length = cold.newInputFile(location).getLength();
      }
      return length;
    }

    @Override
    public SeekableInputStream newStream() {
      LocalFileCache.Lease lease = cache.acquire(List.of(location), cold);
      try {
        Path path = lease.path(location);
        SeekableInputStream local = new LocalInputFile(location, path, -1).newStream();
        return new LeasedStream(local, lease);
      } catch (RuntimeException e) {
        lease.close();
        throw e;
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return cold.newInputFile(location).exists();
    }
  }

  /**
   * A hot location that tiering may have moved: read hot while the file is there, else from its
   * cold counterpart. One existence check (a stat on local disk) per file opened.
   */
  private final class HotOrColdFile implements InputFile {
    private final InputFile hotFile;
    private final String coldLocation;
    private final long length;
    private volatile InputFile resolved;

    HotOrColdFile(InputFile hotFile, String coldLocation, long length) {
      this.hotFile = hotFile;
      this.coldLocation = coldLocation;
      this.length = length;
    }

    private InputFile resolve() {
      InputFile file = resolved;
      if (file == null) {
        file = hotFile.exists() ? hotFile : new CachedColdFile(coldLocation, length);
        resolved = file;
      }
      return file;
    }

    @Override
    public long getLength() {
      return resolve().getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      return resolve().newStream();
    }

    @Override
    public String location() {
      return hotFile.location();
    }

    @Override
    public boolean exists() {
      return resolve().exists();
    }
  }

  /** A stream over a cached file that releases the file for eviction when closed. */
  private static final class LeasedStream extends ForwardingSeekableInputStream {
    private final LocalFileCache.Lease lease;

    LeasedStream(SeekableInputStream in, LocalFileCache.Lease lease) {
      super(in);
      this.lease = lease;
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        lease.close();
      }
    }
  }
}
