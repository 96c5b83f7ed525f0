package dev.featurestore;

import static java.util.Objects.requireNonNull;

import dev.featurestore.spi.FeatureStoreProvider;
import java.nio.file.Path;
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
  private final Path catalogFile;
  private final String warehouseLocation;
  private final Catalog catalog;
  private final FileIO fileIO;
  private final ObjectStorage objectStorage;
  private final int commitRetries;
  private final Duration busyTimeout;
  private final int defaultFormatVersion;
  private final Map<String, String> catalogProperties;
  private final Map<String, String> tableDefaults;
  private final CatalogKind catalogKind;
  private final String catalogUri;
  private final MetricsListener metricsListener;
  private final ObjectStorage coldStorage;
  private final Path coldCacheDirectory;
  private final long coldCacheMaxBytes;

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
    this.catalogFile = builder.catalogFile;
    this.warehouseLocation = builder.warehouseLocation;
    this.catalog = builder.catalog;
    this.fileIO = builder.fileIO;
    this.objectStorage = builder.objectStorage;
    this.commitRetries = builder.commitRetries;
    this.busyTimeout = builder.busyTimeout;
    this.defaultFormatVersion = builder.defaultFormatVersion;
    this.catalogProperties = Collections.unmodifiableMap(new LinkedHashMap<>(builder.catalogProperties));
    this.tableDefaults = Collections.unmodifiableMap(new LinkedHashMap<>(builder.tableDefaults));
    this.catalogKind = builder.catalog != null ? CatalogKind.CUSTOM : builder.catalogKind;
    this.catalogUri = builder.catalogUri;
    this.metricsListener = builder.metricsListener;
    this.coldStorage = builder.coldStorage;
    this.coldCacheDirectory = builder.coldCacheDirectory;
    this.coldCacheMaxBytes = builder.coldCacheMaxBytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's settings, to derive a variant. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.root = root;
    builder.catalogFile = catalogFile;
    builder.warehouseLocation = warehouseLocation;
    builder.catalog = catalog;
    builder.fileIO = fileIO;
    builder.objectStorage = objectStorage;
    builder.commitRetries = commitRetries;
    builder.busyTimeout = busyTimeout;
    builder.defaultFormatVersion = defaultFormatVersion;
    builder.catalogProperties.putAll(catalogProperties);
    builder.tableDefaults.putAll(tableDefaults);
    builder.catalogKind = catalogKind == CatalogKind.CUSTOM ? CatalogKind.EMBEDDED_SQLITE : catalogKind;
    builder.catalogUri = catalogUri;
    builder.metricsListener = metricsListener;
    builder.coldStorage = coldStorage;
    builder.coldCacheDirectory = coldCacheDirectory;
    builder.coldCacheMaxBytes = coldCacheMaxBytes;
    return builder;
  }

  /** The store's root directory (catalog file and default warehouse live here), if set. */
  public Optional<Path> root() {
    return Optional.ofNullable(root);
  }

  /** The SQLite catalog file: set explicitly, or {@code <root>/catalog.db}; empty for other catalogs. */
  public Optional<Path> catalogFile() {
    if (catalogKind != CatalogKind.EMBEDDED_SQLITE) {
      return Optional.empty();
    }
    if (catalogFile != null) {
      return Optional.of(catalogFile);
    }
    return root().map(r -> r.resolve("catalog.db"));
  }

  /**
   * The warehouse location (a URI or path): set explicitly; with object storage
   * {@code s3://<bucket>/<keyPrefix>warehouse}; else {@code <root>/warehouse}.
   */
  public Optional<String> warehouseLocation() {
    if (warehouseLocation != null) {
      return Optional.of(warehouseLocation);
    }
    if (objectStorage != null) {
      return Optional.of(objectStorage.warehouseLocation());
    }
    return root().map(r -> r.resolve("warehouse").toAbsolutePath().toString());
  }

  /** A caller-supplied Iceberg catalog used instead of the embedded SQLite catalog. */
  public Optional<Catalog> catalog() {
    return Optional.ofNullable(catalog);
  }

  /** Which catalog the store commits through. */
  public CatalogKind catalogKind() {
    return catalogKind;
  }

  /**
   * The JDBC URL ({@link CatalogKind#JDBC}) or the REST endpoint ({@link CatalogKind#REST}) of the
   * catalog; empty for the embedded and custom catalogs. Credentials are kept in
   * {@link #catalogProperties()}, not here.
   */
  public Optional<String> catalogUri() {
    return Optional.ofNullable(catalogUri);
  }

  /** The listener that receives scan and commit reports, if set. */
  public Optional<MetricsListener> metricsListener() {
    return Optional.ofNullable(metricsListener);
  }

  /** A caller-supplied FileIO used instead of the local-disk FileIO. */
  public Optional<FileIO> fileIO() {
    return Optional.ofNullable(fileIO);
  }

  /** The bucket that holds the warehouse, if the store is on object storage. */
  public Optional<ObjectStorage> objectStorage() {
    return Optional.ofNullable(objectStorage);
  }

  /** The cold tier's bucket, if the store tiers data (see {@link FeatureTable#tiering()}). */
  public Optional<ObjectStorage> coldStorage() {
    return Optional.ofNullable(coldStorage);
  }

  /**
   * Where cold data files are cached locally: set explicitly, or {@code <root>/cold-cache}; empty
   * without cold storage.
   */
  public Optional<Path> coldCacheDirectory() {
    if (coldStorage == null) {
      return Optional.empty();
    }
    if (coldCacheDirectory != null) {
      return Optional.of(coldCacheDirectory);
    }
    return root().map(r -> r.resolve("cold-cache"));
  }

  /** The size bound of the cold cache in bytes (default {@link #DEFAULT_COLD_CACHE_BYTES}). */
  public long coldCacheMaxBytes() {
    return coldCacheMaxBytes;
  }

  public int commitRetries() {
    return commitRetries;
  }

  public Duration busyTimeout() {
    return busyTimeout;
  }

  public int defaultFormatVersion() {
    return defaultFormatVersion;
  }

  /** Extra properties passed to the Iceberg catalog when the store creates it. */
  public Map<String, String> catalogProperties() {
    return catalogProperties;
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
        + ", catalog=" + (catalog != null ? catalog.name()
            : catalogKind == CatalogKind.EMBEDDED_SQLITE ? "embedded-sqlite"
            : catalogKind.name().toLowerCase(java.util.Locale.ROOT) + " " + Redaction.uri(catalogUri))
        + ", fileIO=" + (fileIO != null ? fileIO.getClass().getSimpleName() : objectStorage != null ? "s3" : "local")
        + (objectStorage == null ? "" : ", objectStorage=" + objectStorage)
        + (coldStorage == null ? "" : ", coldStorage=" + coldStorage + ", coldCache=" + coldCacheDirectory().orElse(null)
            + " (" + coldCacheMaxBytes + " bytes)")
        + ", commitRetries=" + commitRetries
        + ", busyTimeout=" + busyTimeout
        + ", defaultFormatVersion=" + defaultFormatVersion
        + ", catalogPropertyKeys=" + catalogProperties.keySet()
        + ", tableDefaults=" + tableDefaults.keySet() + "}";
  }

  /** Builds a {@link FeatureStoreConfig} and opens stores from it. Not thread-safe. */
  public static final class Builder {
    private Path root;
    private Path catalogFile;
    private String warehouseLocation;
    private Catalog catalog;
    private FileIO fileIO;
    private ObjectStorage objectStorage;
    private int commitRetries = DEFAULT_COMMIT_RETRIES;
    private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
    private int defaultFormatVersion = 2;
    private final Map<String, String> catalogProperties = new LinkedHashMap<>();
    private final Map<String, String> tableDefaults = new LinkedHashMap<>();
    private CatalogKind catalogKind = CatalogKind.EMBEDDED_SQLITE;
    private String catalogUri;
    private MetricsListener metricsListener;
    private ObjectStorage coldStorage;
    private Path coldCacheDirectory;
    private long coldCacheMaxBytes = DEFAULT_COLD_CACHE_BYTES;

    private Builder() {}

    /** The store's root directory; created if missing. */
    public Builder root(Path root) {
      this.root = requireNonNull(root, "root is null");
      return this;
    }

    /** Where the SQLite catalog file lives (default {@code <root>/catalog.db}). */
    public Builder catalogFile(Path catalogFile) {
      this.catalogFile = requireNonNull(catalogFile, "catalogFile is null");
      return this;
    }

    /** Where table data and metadata live (default {@code <root>/warehouse}). */
    public Builder warehouseLocation(String warehouseLocation) {
      requireNonNull(warehouseLocation, "warehouseLocation is null");
      if (warehouseLocation.isBlank()) {
        throw new IllegalArgumentException("Cannot set warehouse location: location is blank");
      }
      this.warehouseLocation = warehouseLocation;
      return this;
    }

    /**
     * Uses any Iceberg catalog instead of the embedded SQLite one. The caller keeps ownership:
     * closing the store does not close this catalog.
     */
    public Builder catalog(Catalog catalog) {
      this.catalog = requireNonNull(catalog, "catalog is null");
      return this;
    }

    /**
     * Uses this FileIO for data and metadata instead of the local-disk FileIO. The caller keeps
     * ownership: closing the store does not close it.
     */
    public Builder fileIO(FileIO fileIO) {
      this.fileIO = requireNonNull(fileIO, "fileIO is null");
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
      this.objectStorage = requireNonNull(objectStorage, "objectStorage is null");
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
      this.coldStorage = requireNonNull(coldStorage, "coldStorage is null");
      return this;
    }

    /**
     * Where cold data files are cached locally and the cache's size bound (default
     * {@code <root>/cold-cache}, {@link #DEFAULT_COLD_CACHE_BYTES}). The bound is exceeded only while
     * a read holds more than it.
     *
     * @throws IllegalArgumentException if {@code maxBytes} is not positive
     */
    public Builder coldCache(Path directory, long maxBytes) {
      requireNonNull(directory, "directory is null");
      if (maxBytes <= 0) {
        throw new IllegalArgumentException("Cannot set cold cache: size bound must be positive: " + maxBytes);
      }
      this.coldCacheDirectory = directory;
      this.coldCacheMaxBytes = maxBytes;
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
      requireNonNull(jdbcUrl, "jdbcUrl is null");
      requireNonNull(user, "user is null");
      requireNonNull(password, "password is null");
      if (!jdbcUrl.startsWith("jdbc:")) {
        throw new IllegalArgumentException("Cannot set JDBC catalog: URL does not start with jdbc: " + Redaction.uri(jdbcUrl));
      }
      if (jdbcUrl.startsWith("jdbc:sqlite:")) {
        throw new IllegalArgumentException(
            "Cannot set JDBC catalog: SQLite is the embedded catalog: use catalogFile(path) instead: " + jdbcUrl);
      }
      this.catalogKind = CatalogKind.JDBC;
      this.catalogUri = jdbcUrl;
      catalogProperties.put("jdbc.user", user);
      catalogProperties.put("jdbc.password", password);
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
      requireNonNull(uri, "uri is null");
      if (!uri.startsWith("http://") && !uri.startsWith("https://")) {
        throw new IllegalArgumentException("Cannot set REST catalog: URI is not http(s): " + Redaction.uri(uri));
      }
      this.catalogKind = CatalogKind.REST;
      this.catalogUri = uri;
      return this;
    }

    /**
     * Receives Iceberg's scan and commit reports of every table of the store, as
     * {@link ScanMetrics} and {@link CommitMetrics}.
     */
    public Builder metricsListener(MetricsListener listener) {
      this.metricsListener = requireNonNull(listener, "listener is null");
      return this;
    }

    /** Optimistic commit retries per operation (default 20). */
    public Builder commitRetries(int commitRetries) {
      if (commitRetries < 0 || commitRetries > 1000) {
        throw new IllegalArgumentException(
            "Cannot set commit retries: expected 0 to 1000: " + commitRetries);
      }
      this.commitRetries = commitRetries;
      return this;
    }

    /** How long a writer waits for the SQLite catalog lock before failing (default 30 s). */
    public Builder busyTimeout(Duration busyTimeout) {
      requireNonNull(busyTimeout, "busyTimeout is null");
      if (busyTimeout.isNegative()) {
        throw new IllegalArgumentException("Cannot set busy timeout: negative: " + busyTimeout);
      }
      this.busyTimeout = busyTimeout;
      return this;
    }

    /** Iceberg format version for new tables: 2 (default) or 3. */
    public Builder defaultFormatVersion(int formatVersion) {
      if (formatVersion != 2 && formatVersion != 3) {
        throw new IllegalArgumentException(
            "Cannot set format version: expected 2 or 3: " + formatVersion);
      }
      this.defaultFormatVersion = formatVersion;
      return this;
    }

    /** Adds a property passed to the Iceberg catalog the store creates. */
    public Builder catalogProperty(String key, String value) {
      requireNonNull(key, "key is null");
      requireNonNull(value, "value is null");
      catalogProperties.put(key, value);
      return this;
    }

    /** Adds a table property applied to every table this store creates. */
    public Builder tableDefault(String key, String value) {
      requireNonNull(key, "key is null");
      requireNonNull(value, "value is null");
      tableDefaults.put(key, value);
      return this;
    }

    /** The configuration, checked. */
    public FeatureStoreConfig config() {
      checkColdTier();
      if (catalogKind != CatalogKind.EMBEDDED_SQLITE) {
        if (catalog != null) {
          throw new IllegalStateException(
              "Cannot configure feature store: catalog(...) and " + kindSetter() + " are exclusive");
        }
        if (catalogFile != null) {
          throw new IllegalStateException(
              "Cannot configure feature store: catalogFile(...) and " + kindSetter() + " are exclusive");
        }
        if (catalogKind == CatalogKind.JDBC && root == null && warehouseLocation == null && objectStorage == null) {
          throw new IllegalStateException(
              "Cannot configure feature store: the JDBC catalog needs a warehouse: set warehouseLocation(...), objectStorage(...) or root(dir)");
        }
        if (objectStorage != null && warehouseLocation != null
            && !warehouseLocation.startsWith("s3://" + objectStorage.bucket() + "/")) {
          throw new IllegalStateException(
              "Cannot configure feature store: warehouse location is outside the object storage bucket: " + warehouseLocation);
        }
        return new FeatureStoreConfig(this);
      }
      if (objectStorage != null && catalog == null && root == null && catalogFile == null) {
        throw new IllegalStateException(
            "Cannot configure feature store: object storage keeps the catalog local: set root(dir) or catalogFile(path)");
      }
      if (catalog == null && root == null && catalogFile == null) {
        throw new IllegalStateException(
            "Cannot configure feature store: set root(dir) for the embedded catalog, or catalog(...)");
      }
      if (objectStorage != null && warehouseLocation != null
          && !warehouseLocation.startsWith("s3://" + objectStorage.bucket() + "/")) {
        throw new IllegalStateException(
            "Cannot configure feature store: warehouse location is outside the object storage bucket: " + warehouseLocation);
      }
      if (catalog == null && root == null && warehouseLocation == null && objectStorage == null) {
        throw new IllegalStateException(
            "Cannot configure feature store: set root(dir) or warehouseLocation(...) for the embedded catalog");
      }
      if (catalog != null && catalogFile != null) {
        throw new IllegalStateException(
            "Cannot configure feature store: catalogFile(...) and catalog(...) are exclusive");
      }
      return new FeatureStoreConfig(this);
    }

    private void checkColdTier() {
      if (coldStorage == null) {
        if (coldCacheDirectory != null) {
          throw new IllegalStateException("Cannot configure feature store: coldCache(...) needs coldStorage(...)");
        }
        return;
      }
      if (catalog != null || catalogKind == CatalogKind.REST) {
        throw new IllegalStateException(
            "Cannot configure feature store: cold storage needs the embedded or JDBC catalog (they read through the store's FileIO)");
      }
      if (root == null && coldCacheDirectory == null) {
        throw new IllegalStateException(
            "Cannot configure feature store: cold storage needs a local cache: set root(dir) or coldCache(dir, maxBytes)");
      }
      if (objectStorage != null && objectStorage.bucket().equals(coldStorage.bucket())
          && objectStorage.keyPrefix().equals(coldStorage.keyPrefix())) {
        throw new IllegalStateException(
            "Cannot configure feature store: cold storage is the hot warehouse: use another bucket or key prefix: "
                + coldStorage.bucket());
      }
    }

    private String kindSetter() {
      return catalogKind == CatalogKind.JDBC ? "jdbcCatalog(...)" : "restCatalog(...)";
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
