package dev.featurestore;

import dev.featurestore.spi.FeatureStoreProvider;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;

/**
 * Immutable settings of a {@link FeatureStore}. Build one with {@link FeatureStore#builder()};
 * derive a variant with {@link #toBuilder()}.
 *
 * <p>The embedded default needs only a root directory: the store keeps its SQLite catalog at
 * {@code <root>/catalog.db} and its Iceberg tables under {@code <root>/warehouse/}.
 *
 * <pre>{@code
 * try (FeatureStore store = FeatureStore.builder().root(Path.of("my-store")).build()) {
 *   ...
 * }
 * }</pre>
 */
public final class FeatureStoreConfig {
  /** Default number of optimistic commit retries (Iceberg's own default is 4). */
  public static final int DEFAULT_COMMIT_RETRIES = 20;

  /** Default size bound of the local cache of cold data files (1 GiB). */
  public static final long DEFAULT_COLD_CACHE_BYTES = 1L << 30;

  /** Default time a writer waits for the SQLite catalog lock. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(30);

  private final Path root;
  private final CatalogSettings catalog;
  private final StorageSettings storage;
  private final int defaultFormatVersion;
  private final Map<String, String> tableDefaults;
  private final MetricsListener metricsListener;
  private final Clock clock;
  private final String actor;

  /** The longest actor name accepted. */
  public static final int MAX_ACTOR_LENGTH = 255;

  /** Which catalog a store commits through. */
  public enum CatalogKind {
    /** The embedded default: Iceberg's JDBC catalog on a local SQLite file. One host. */
    EMBEDDED_SQLITE,
    /** Iceberg's JDBC catalog on a database server (PostgreSQL): several hosts and processes. */
    JDBC,
    /** An Iceberg REST catalog (R2 Data Catalog, Polaris, Nessie, Lakekeeper, ...). */
    REST,
    /** A catalog object the caller passed to {@link Builder#catalog(Catalog)}. */
    CUSTOM
  }

  private FeatureStoreConfig(Builder builder) {
    this.root = builder.root;
    this.catalog = builder.catalog.build();
    this.storage = builder.storage.build();
    this.defaultFormatVersion = builder.defaultFormatVersion;
    this.tableDefaults = Collections.unmodifiableMap(new LinkedHashMap<>(builder.tableDefaults));
    this.metricsListener = builder.metricsListener;
    this.clock = builder.clock;
    this.actor = builder.actor;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's settings, to derive a variant. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.root = root;
    builder.catalog = catalog.toDraft();
    builder.storage = storage.toDraft();
    builder.defaultFormatVersion = defaultFormatVersion;
    builder.tableDefaults.putAll(tableDefaults);
    builder.metricsListener = metricsListener;
    builder.clock = clock;
    builder.actor = actor;
    return builder;
  }

  /** The store's root directory (catalog file and default warehouse live here), if set. */
  public Optional<Path> root() {
    return Optional.ofNullable(root);
  }

  /** The SQLite catalog file: set explicitly, or {@code <root>/catalog.db}; empty for other catalogs. */
  public Optional<Path> catalogFile() {
    return catalog.catalogFile(root);
  }

  /**
   * The warehouse location (a URI or path): set explicitly; with object storage
   * {@code s3://<bucket>/<keyPrefix>warehouse}; else {@code <root>/warehouse}.
   */
  public Optional<String> warehouseLocation() {
    return storage.warehouseLocation(root);
  }

  /** A caller-supplied Iceberg catalog used instead of the embedded SQLite catalog. */
  public Optional<Catalog> catalog() {
    return catalog.catalog();
  }

  /** Which catalog the store commits through. */
  public CatalogKind catalogKind() {
    return catalog.kind();
  }

  /**
   * The JDBC URL ({@link CatalogKind#JDBC}) or the REST endpoint ({@link CatalogKind#REST}) of the
   * catalog; empty for the embedded and custom catalogs. Credentials are kept in
   * {@link #catalogProperties()}, not here.
   */
  public Optional<String> catalogUri() {
    return catalog.uri();
  }

  /** The listener that receives scan and commit reports, if set. */
  public Optional<MetricsListener> metricsListener() {
    return Optional.ofNullable(metricsListener);
  }

  /** A caller-supplied FileIO used instead of the local-disk FileIO. */
  public Optional<FileIO> fileIO() {
    return storage.fileIO();
  }

  /** The bucket that holds the warehouse, if the store is on object storage. */
  public Optional<ObjectStorage> objectStorage() {
    return storage.objectStorage();
  }

  /** The cold tier's bucket, if the store tiers data (see {@link FeatureTable#tiering()}). */
  public Optional<ObjectStorage> coldStorage() {
    return storage.coldStorage();
  }

  /**
   * Where cold data files are cached locally: set explicitly, or {@code <root>/cold-cache}; empty
   * without cold storage.
   */
  public Optional<Path> coldCacheDirectory() {
    return storage.coldCacheDirectory(root);
  }

  /** The size bound of the cold cache in bytes (default {@link #DEFAULT_COLD_CACHE_BYTES}). */
  public long coldCacheMaxBytes() {
    return storage.coldCacheMaxBytes();
  }

  public int commitRetries() {
    return catalog.commitRetries();
  }

  public Duration busyTimeout() {
    return catalog.busyTimeout();
  }

  public int defaultFormatVersion() {
    return defaultFormatVersion;
  }

  /** Extra properties passed to the Iceberg catalog when the store creates it. */
  public Map<String, String> catalogProperties() {
    return catalog.properties();
  }

  /**
   * The clock the store decides by where an operation depends on the current time: the age window
   * of orphan-file removal, relative snapshot-expiry cutoffs of maintenance policies, tiering age
   * thresholds, catalog lease expiry. Default {@link Clock#systemUTC()}.
   */
  public Clock clock() {
    return clock;
  }

  /**
   * Who the operations log ({@link FeatureStore#operations()}) records as the actor of this store's
   * operations: set with {@link Builder#actor(String)}, else the {@code user.name} system property
   * (or {@code unknown}).
   */
  public String actor() {
    return actor != null ? actor : defaultActor();
  }

  private static String defaultActor() {
    String user = System.getProperty("user.name");
    return user == null || user.isBlank() ? "unknown" : user;
  }

  /** Table properties applied to every table the store creates (a table's own win). */
  public Map<String, String> tableDefaults() {
    return tableDefaults;
  }

  @Override
  public String toString() {
    // Properties may hold secrets: print their keys only.
    return "FeatureStoreConfig{root=" + root
        + ", catalogFile=" + catalogFile().orElse(null)
        + ", warehouse=" + warehouseLocation().orElse(null)
        + ", catalog=" + catalog.describe()
        + storage.describe(root)
        + ", commitRetries=" + commitRetries()
        + ", busyTimeout=" + busyTimeout()
        + ", defaultFormatVersion=" + defaultFormatVersion
        + ", actor=" + actor()
        + ", catalogPropertyKeys=" + catalogProperties().keySet()
        + ", tableDefaults=" + tableDefaults.keySet()
        + (clock.equals(Clock.systemUTC()) ? "" : ", clock=" + clock) + "}";
  }

  /** Builds a {@link FeatureStoreConfig} and opens stores from it. Not thread-safe. */
  public static final class Builder {
    private Path root;
    private CatalogSettings.Draft catalog = new CatalogSettings.Draft();
    private StorageSettings.Draft storage = new StorageSettings.Draft();
    private int defaultFormatVersion = 2;
    private final Map<String, String> tableDefaults = new LinkedHashMap<>();
    private MetricsListener metricsListener;
    private Clock clock = Clock.systemUTC();
    private String actor;

    private Builder() {}

    /** The store's root directory; created if missing. */
    public Builder root(Path root) {
      this.root = InvalidArgumentException.requireNonNull(root, "set root", "root");
      return this;
    }

    /** Where the SQLite catalog file lives (default {@code <root>/catalog.db}). */
    public Builder catalogFile(Path catalogFile) {
      catalog.catalogFile(catalogFile);
      return this;
    }

    /** Where table data and metadata live (default {@code <root>/warehouse}). */
    public Builder warehouseLocation(String warehouseLocation) {
      storage.warehouseLocation(warehouseLocation);
      return this;
    }

    /**
     * Uses any Iceberg catalog instead of the embedded SQLite one. The caller keeps ownership:
     * closing the store does not close this catalog.
     */
    public Builder catalog(Catalog catalog) {
      this.catalog.catalog(catalog);
      return this;
    }

    /**
     * Uses this FileIO for data and metadata instead of the local-disk FileIO. The caller keeps
     * ownership: closing the store does not close it.
     */
    public Builder fileIO(FileIO fileIO) {
      storage.fileIO(fileIO);
      return this;
    }

    /**
     * Keeps table data, manifests and metadata in this bucket, under
     * {@code <keyPrefix>warehouse/}. The SQLite catalog stays local: set {@link #root(Path)} or
     * {@link #catalogFile(Path)} too. The store creates and owns the S3 FileIO (unless
     * {@link #fileIO(FileIO)} is also set, which wins).
     *
     * <pre>{@code
     * FeatureStore.builder().root(Path.of("my-store")).objectStorage(ObjectStorage.fromEnvironment()).build();
     * }</pre>
     */
    public Builder objectStorage(ObjectStorage objectStorage) {
      storage.objectStorage(objectStorage);
      return this;
    }

    /**
     * Adds a cold tier: {@link FeatureTable#tiering()} moves old data files from the warehouse (the
     * hot location: local disk or the {@link #objectStorage(ObjectStorage)} bucket) to this bucket,
     * under {@code <keyPrefix>warehouse/} at the same relative paths. Reads of cold files go
     * through a local, size-bounded cache ({@link #coldCache(Path, long)}). Metadata stays hot. Needs
     * the embedded or JDBC catalog (they use the store's FileIO); checked in {@code build()}.
     *
     * <pre>{@code
     * FeatureStore.builder().root(Path.of("my-store")).coldStorage(ObjectStorage.fromEnvironment()).build();
     * }</pre>
     */
    public Builder coldStorage(ObjectStorage coldStorage) {
      storage.coldStorage(coldStorage);
      return this;
    }

    /**
     * Where cold data files are cached locally and the cache's size bound (default
     * {@code <root>/cold-cache}, {@link #DEFAULT_COLD_CACHE_BYTES}). The bound is exceeded only while
     * a read holds more than it.
     *
     * <p>An open store owns its cache directory: another store (in this or another process) that
     * finds the default directory in use caches in a private {@code <root>/cold-cache/private/<id>}
     * (deleted on close); a directory named here that another store uses makes opening the store
     * fail with {@link InvalidStateException} ({@code Cannot open cold cache: directory in use by
     * another store: <dir>}).
     *
     * @throws IllegalArgumentException if {@code maxBytes} is not positive
     */
    public Builder coldCache(Path directory, long maxBytes) {
      storage.coldCache(directory, maxBytes);
      return this;
    }

    /**
     * Commits through Iceberg's JDBC catalog on a database server (PostgreSQL; the driver comes
     * with featurestore-core), so that several processes on several hosts can write the same
     * tables: each commit is a compare-and-swap of the table's metadata location in the
     * database, and a writer that loses the race retries ({@link #commitRetries(int)}). The store
     * opens and closes the catalog. Tables live in {@link #warehouseLocation(String)} (or
     * {@code <root>/warehouse}, or the object storage bucket), which every writer must reach.
     * The password is kept out of {@code toString()}.
     *
     * <pre>{@code
     * FeatureStore.builder()
     *     .jdbcCatalog("jdbc:postgresql://db.internal:5432/features", "featurestore", password)
     *     .objectStorage(ObjectStorage.fromEnvironment())
     *     .build();
     * }</pre>
     */
    public Builder jdbcCatalog(String jdbcUrl, String user, String password) {
      catalog.jdbc(jdbcUrl, user, password);
      return this;
    }

    /**
     * Commits through an Iceberg REST catalog at {@code uri} (for example R2 Data Catalog,
     * Apache Polaris, Nessie or Lakekeeper). Pass what the server needs with
     * {@link #catalogProperty(String, String)}: {@code warehouse}, {@code token} (a bearer token)
     * or {@code credential} ({@code client_id:client_secret} for OAuth2), {@code scope}. Their
     * values are kept out of {@code toString()}. The store opens and closes the catalog; the
     * server decides where tables live.
     *
     * <pre>{@code
     * FeatureStore.builder()
     *     .restCatalog("https://catalog.example.com/api/catalog")
     *     .catalogProperty("warehouse", "features")
     *     .catalogProperty("token", System.getenv("CATALOG_TOKEN"))
     *     .build();
     * }</pre>
     */
    public Builder restCatalog(String uri) {
      catalog.rest(uri);
      return this;
    }

    /**
     * Receives Iceberg's scan and commit reports of every table of the store, as
     * {@link ScanMetrics} and {@link CommitMetrics}.
     */
    public Builder metricsListener(MetricsListener listener) {
      this.metricsListener = InvalidArgumentException.requireNonNull(listener, "set metrics listener", "listener");
      return this;
    }

    /**
     * The clock the store decides by where an operation depends on the current time (see
     * {@link FeatureStoreConfig#clock()}); default {@link Clock#systemUTC()}. Tests pass a clock they
     * advance instead of sleeping. Commit and snapshot timestamps are Iceberg's own (the system
     * clock), so set a clock at or after the system time, or age thresholds will see every snapshot
     * as young.
     */
    public Builder clock(Clock clock) {
      this.clock = InvalidArgumentException.requireNonNull(clock, "set clock", "clock");
      return this;
    }

    /**
     * The name the operations log records as the actor of this store's operations (a user, a
     * service, a job id); default the {@code user.name} system property.
     *
     * @throws InvalidArgumentException if null, blank, longer than {@value #MAX_ACTOR_LENGTH}
     *     characters or holding control characters
     */
    public Builder actor(String actor) {
      InvalidArgumentException.requireNonNull(actor, "set actor", "actor");
      InvalidArgumentException.check(!actor.isBlank(), "Cannot set actor: is blank: '%s'", actor);
      InvalidArgumentException.check(actor.length() <= MAX_ACTOR_LENGTH,
          "Cannot set actor: longer than %s characters: %s", MAX_ACTOR_LENGTH, actor.length());
      InvalidArgumentException.check(actor.chars().noneMatch(Character::isISOControl),
          "Cannot set actor: control characters are not allowed: '%s'", FeatureStoreException.printable(actor));
      this.actor = actor;
      return this;
    }

    /** Optimistic commit retries per operation (default 20). */
    public Builder commitRetries(int commitRetries) {
      catalog.commitRetries(commitRetries);
      return this;
    }

    /** How long a writer waits for the SQLite catalog lock before failing (default 30 s). */
    public Builder busyTimeout(Duration busyTimeout) {
      catalog.busyTimeout(busyTimeout);
      return this;
    }

    /** Iceberg format version for new tables: 2 (default) or 3. */
    public Builder defaultFormatVersion(int formatVersion) {
      if (formatVersion != 2 && formatVersion != 3) {
        throw new InvalidArgumentException(
            "Cannot set format version: expected 2 or 3: " + formatVersion);
      }
      this.defaultFormatVersion = formatVersion;
      return this;
    }

    /** Adds a property passed to the Iceberg catalog the store creates. */
    public Builder catalogProperty(String key, String value) {
      catalog.property(key, value);
      return this;
    }

    /** Adds a table property applied to every table this store creates. */
    public Builder tableDefault(String key, String value) {
      InvalidArgumentException.requireNonNull(key, "set table default", "key");
      InvalidArgumentException.requireNonNull(value, "set table default", "value");
      tableDefaults.put(key, value);
      return this;
    }

    /** The configuration, checked. */
    public FeatureStoreConfig config() {
      storage.checkColdTier(catalog, root);
      if (catalog.kind() != CatalogKind.EMBEDDED_SQLITE) {
        if (catalog.hasCatalog()) {
          throw new InvalidStateException(
              "Cannot configure feature store: catalog(...) and " + catalog.kindSetter() + " are exclusive");
        }
        if (catalog.hasCatalogFile()) {
          throw new InvalidStateException(
              "Cannot configure feature store: catalogFile(...) and " + catalog.kindSetter() + " are exclusive");
        }
        if (catalog.kind() == CatalogKind.JDBC && root == null && !storage.hasWarehouseLocation() && !storage.hasObjectStorage()) {
          throw new InvalidStateException(
              "Cannot configure feature store: the JDBC catalog needs a warehouse: set warehouseLocation(...), objectStorage(...) or root(dir)");
        }
        storage.checkWarehouseInBucket();
        return new FeatureStoreConfig(this);
      }
      boolean custom = catalog.hasCatalog();
      if (storage.hasObjectStorage() && !custom && root == null && !catalog.hasCatalogFile()) {
        throw new InvalidStateException(
            "Cannot configure feature store: object storage keeps the catalog local: set root(dir) or catalogFile(path)");
      }
      if (!custom && root == null && !catalog.hasCatalogFile()) {
        throw new InvalidStateException(
            "Cannot configure feature store: set root(dir) for the embedded catalog, or catalog(...)");
      }
      storage.checkWarehouseInBucket();
      if (!custom && root == null && !storage.hasWarehouseLocation() && !storage.hasObjectStorage()) {
        throw new InvalidStateException(
            "Cannot configure feature store: set root(dir) or warehouseLocation(...) for the embedded catalog");
      }
      if (custom && catalog.hasCatalogFile()) {
        throw new InvalidStateException(
            "Cannot configure feature store: catalogFile(...) and catalog(...) are exclusive");
      }
      return new FeatureStoreConfig(this);
    }

    /** Opens a store with this configuration. The caller must close it. */
    public FeatureStore build() {
      return FeatureStore.open(config());
    }

  }

  static FeatureStoreProvider provider() {
    Iterator<FeatureStoreProvider> providers =
        ServiceLoader.load(FeatureStoreProvider.class, FeatureStoreConfig.class.getClassLoader()).iterator();
    if (!providers.hasNext()) {
      throw new FeatureStoreException(
          "Cannot open feature store: no implementation on the classpath: add dev.featurestore:featurestore-core");
    }
    return providers.next();
  }
}
