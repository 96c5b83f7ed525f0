package dev.featurestore.core;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.ListResult;
import dev.featurestore.core.base.OperationLog;
import dev.featurestore.core.base.TableCoordination;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.QueryResult;
import dev.featurestore.core.catalog.StaticTables;
import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.Redaction;
import dev.featurestore.StorageException;
import dev.featurestore.TableAlreadyExistsException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TableNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.catalog.CatalogRecovery;
import dev.featurestore.core.catalog.EmbeddedCatalog;
import dev.featurestore.core.catalog.Namespaces;
import dev.featurestore.core.catalog.TableCreation;
import dev.featurestore.core.catalog.SharedCatalogs;
import dev.featurestore.core.objects.S3ObjectBrowser;
import dev.featurestore.core.online.OnlineViews;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.OwnedDirectory;
import dev.featurestore.core.storage.TieredFileIO;
import dev.featurestore.core.storage.s3.ObjectStorageErrors;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.MetricsReporters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The store: owns the catalog, the FileIO and a worker pool; hands out table handles. */
final class DefaultFeatureStore implements FeatureStore {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultFeatureStore.class);

  /** Table properties every new table gets unless the definition or store says otherwise. */
  static final Map<String, String> LIBRARY_TABLE_DEFAULTS = Map.of(
      TableProperties.PARQUET_COMPRESSION, "zstd",
      TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
      TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "100");

  private final FeatureStoreConfig config;
  private final Catalog catalog;
  private final FileIO io;
  private final ExecutorService workers;
  private final OperationLog operationLog;
  private volatile S3ObjectBrowser objects;
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();
  private final Map<TableId, TableCoordination> coordinations = new ConcurrentHashMap<>();
  private final Map<String, OnlineView> onlineViews = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean(false);
  /** Background maintenance started through this store's tables and still running: stopped first on close. */
  private final java.util.Set<dev.featurestore.BackgroundMaintenance> background = ConcurrentHashMap.newKeySet();

  private DefaultFeatureStore(FeatureStoreConfig config, Catalog catalog, FileIO io, ExecutorService workers,
      OperationLog operationLog) {
    this.config = config;
    this.catalog = catalog;
    this.io = io;
    this.workers = workers;
    this.operationLog = operationLog;
  }

  static DefaultFeatureStore open(FeatureStoreConfig config) {
    InvalidArgumentException.requireNonNull(config, "open feature store", "config");
    Deque<AutoCloseable> owned = new ArrayDeque<>();
    try {
      config.root().ifPresent(DefaultFeatureStore::createDirectory);
      FileIO io;
      if (config.fileIO().isPresent()) {
        io = config.fileIO().get();
      } else if (config.objectStorage().isPresent()) {
        // The bucket is the warehouse; the catalog file stays local. Checked reachable here.
        io = ObjectStorageIO.open(config.objectStorage().get());
        owned.push(io);
      } else {
        LocalFileIO local = new LocalFileIO();
        local.initialize(Map.of());
        io = local;
        owned.push(local);
      }
      if (config.coldStorage().isPresent()) {
        io = openTiered(config, io, owned);
      }
      Catalog catalog;
      if (config.catalog().isPresent()) {
        catalog = config.catalog().get();
      } else if (config.catalogKind() == FeatureStoreConfig.CatalogKind.JDBC) {
        config.warehouseLocation().filter(w -> !w.contains("://")).map(LocalFileIO::toPath)
            .ifPresent(DefaultFeatureStore::createDirectory);
        catalog = SharedCatalogs.jdbc(config, io);
        owned.push((Closeable) catalog);
      } else if (config.catalogKind() == FeatureStoreConfig.CatalogKind.REST) {
        catalog = SharedCatalogs.rest(config);
        owned.push((Closeable) catalog);
      } else {
        config.warehouseLocation().filter(w -> !w.contains("://")).map(LocalFileIO::toPath)
            .ifPresent(DefaultFeatureStore::createDirectory);
        catalog = EmbeddedCatalog.open(config, io);
        owned.push((Closeable) catalog);
      }
      ExecutorService workers = Executors.newFixedThreadPool(
          Math.max(2, Runtime.getRuntime().availableProcessors()), daemonThreads("featurestore-worker"));
      owned.push(workers::shutdownNow);
      OperationLog operationLog = OperationLog.forStore(config);
      owned.push(operationLog);
      DefaultFeatureStore store = new DefaultFeatureStore(config, catalog, io, workers, operationLog);
      store.owned.addAll(owned);
      LOG.info("Opened feature store: catalog {}, warehouse {}{}", describeCatalog(config),
          config.warehouseLocation().orElse("(decided by the catalog)"),
          config.coldStorage().map(c -> ", cold tier " + c.warehouseLocation()).orElse(""));
      LOG.debug("Opened feature store: {}", config);
      TransportWarnings.of(config).forEach(w -> LOG.warn(w.logLine()));
      return store;
    } catch (RuntimeException e) {
      closeAll(owned);
      if (e instanceof FeatureStoreException || e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
        throw e;
      }
      java.util.Set<String> secrets = Redaction.secretsOf(config);
      throw ObjectStorageErrors.translate(e, "open feature store").map(RuntimeException.class::cast)
          .orElseGet(() -> new StorageException("Cannot open feature store: " + Redaction.text(e.getMessage(), secrets),
              Redaction.throwable(e, secrets)));
    }
  }

  /**
   * Wraps the hot FileIO with the cold tier: cold bucket FileIO (checked reachable) and the local
   * cache of cold files. Both are owned by the store.
   */
  private static FileIO openTiered(FeatureStoreConfig config, FileIO hot, Deque<AutoCloseable> owned) {
    String hotWarehouse = config.warehouseLocation()
        .orElseThrow(() -> new IllegalStateException("Cannot open cold storage: the store has no warehouse location"));
    FileIO cold = ObjectStorageIO.open(config.coldStorage().get());
    owned.push(cold);
    // another store on the same root owning the default cache makes this one cache privately;
    // a directory the user named must not be shared (eviction would delete files it reads)
    Path cacheDirectory = config.coldCacheDirectory().orElseThrow();
    boolean isDefault = config.root().map(r -> r.resolve("cold-cache").toAbsolutePath().normalize())
        .filter(cacheDirectory.toAbsolutePath().normalize()::equals).isPresent();
    OwnedDirectory cache = isDefault ? OwnedDirectory.claimOrPrivate(cacheDirectory, "cold cache")
        : OwnedDirectory.claim(cacheDirectory, "cold cache");
    TieredFileIO tiered = TieredFileIO.open(hot, cold, hotWarehouse, config.coldStorage().get().warehouseLocation(),
        cache, config.coldCacheMaxBytes());
    owned.push(tiered);
    return tiered;
  }

  private static String describeCatalog(FeatureStoreConfig config) {
    switch (config.catalogKind()) {
      case EMBEDDED_SQLITE:
        return "sqlite " + config.catalogFile().map(Path::toString).orElse("?");
      case CUSTOM:
        return config.catalog().map(c -> c.getClass().getSimpleName() + " " + c.name()).orElse("custom");
      default:
        return config.catalogKind().name().toLowerCase(java.util.Locale.ROOT) + " "
            + config.catalogUri().map(Redaction::uri).orElse("?");
    }
  }

  private static void createDirectory(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException("Cannot create store directory: " + dir, e);
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public ObjectBrowser objects() {
    checkOpen();
    if (config.objectStorage().isEmpty()) {
      throw new ValidationException(
          "Cannot browse objects: the store is on local disk, not object storage: " + config.root().map(Path::toString).orElse("(no root)"));
    }
    S3ObjectBrowser browser = objects;
    if (browser == null) {
      synchronized (this) {
        browser = objects;
        if (browser == null) {
          browser = new S3ObjectBrowser(config.objectStorage().get(), io, operationLog);
          // closed before the FileIO whose client it uses
          owned.push(browser);
          objects = browser;
        }
      }
    }
    return browser;
  }

  @Override
  public FeatureStoreConfig config() {
    return config;
  }

  @Override
  public FeatureTable createTable(TableDefinition definition) {
    InvalidArgumentException.requireNonNull(definition, "create table", "definition");
    checkOpen();
    TableId id = definition.id();
    Map<String, String> props = new HashMap<>(LIBRARY_TABLE_DEFAULTS);
    props.put(TableProperties.COMMIT_NUM_RETRIES, Integer.toString(config.commitRetries()));
    props.putAll(config.tableDefaults());
    props.putAll(definition.properties());
    props.put(TableProperties.FORMAT_VERSION,
        Integer.toString(definition.formatVersion().orElse(config.defaultFormatVersion())));
    try {
      Namespaces.ensure(catalog, Namespace.of(id.namespace()));
      Table table = TableCreation.create(catalog, io, new TableCreation.NewTable(identifier(id), id.toString(),
          definition.schema(), definition.partitionSpec(), definition.sortOrder(), props, definition.location(),
          expectedLocation(id, definition)));
      LOG.info("Created table {} at {}", id, table.location());
      operationLog.record("create_table", id, null, Map.of("location", table.location(),
          "format_version", props.get(TableProperties.FORMAT_VERSION)));
      return wrap(id, table);
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
      throw new TableAlreadyExistsException(id);
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new ValidationException("Cannot create table " + id + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new ValidationException("Cannot create table " + id + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw Errors.translate(e, "create table " + id);
    }
  }

  /**
   * Where a new table's files go, when the store knows: its explicit location, or the default
   * layout of the store's own catalogs ({@code <warehouse>/<namespace>/<name>}). A caller's
   * catalog may place tables elsewhere, so its default location is not guessed.
   */
  private Optional<String> expectedLocation(TableId id, TableDefinition definition) {
    if (definition.location().isPresent() || config.catalog().isPresent()) {
      return definition.location();
    }
    return config.warehouseLocation().map(warehouse -> {
      String base = warehouse;
      while (base.endsWith("/")) {
        base = base.substring(0, base.length() - 1);
      }
      return base + "/" + id.namespace() + "/" + id.name();
    });
  }

  @Override
  public FeatureTable table(TableId id) {
    return findTable(id).orElseThrow(() -> new TableNotFoundException(id));
  }

  @Override
  public Optional<FeatureTable> findTable(TableId id) {
    InvalidArgumentException.requireNonNull(id, "find table", "id");
    checkOpen();
    try {
      return Optional.of(wrap(id, catalog.loadTable(identifier(id))));
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      throw Errors.translate(e, "load table " + id);
    }
  }

  @Override
  public boolean tableExists(TableId id) {
    InvalidArgumentException.requireNonNull(id, "check table", "id");
    checkOpen();
    try {
      return catalog.tableExists(identifier(id));
    } catch (RuntimeException e) {
      throw Errors.translate(e, "check table " + id);
    }
  }

  @Override
  public List<String> namespaces() {
    checkOpen();
    List<String> names = new ArrayList<>();
    if (catalog instanceof SupportsNamespaces namespaces) {
      try {
        for (Namespace ns : namespaces.listNamespaces()) {
          names.add(String.join(".", ns.levels()));
        }
      } catch (RuntimeException e) {
        throw Errors.translate(e, "list namespaces");
      }
    }
    names.sort(Comparator.naturalOrder());
    return names;
  }

  @Override
  public List<TableId> listTables(String namespace) {
    InvalidArgumentException.requireNonNull(namespace, "list tables", "namespace");
    checkOpen();
    try {
      List<TableId> ids = new ArrayList<>();
      for (TableIdentifier ident : catalog.listTables(Namespace.of(namespace))) {
        ids.add(TableId.of(namespace, ident.name()));
      }
      ids.sort(Comparator.comparing(TableId::toString));
      return ids;
    } catch (NoSuchNamespaceException e) {
      return List.of();
    } catch (RuntimeException e) {
      throw Errors.translate(e, "list tables of " + namespace);
    }
  }

  @Override
  public List<TableId> listTables() {
    List<TableId> ids = new ArrayList<>();
    for (String ns : namespaces()) {
      ids.addAll(listTables(ns));
    }
    ids.sort(Comparator.comparing(TableId::toString));
    return ids;
  }

  @Override
  public boolean dropTable(TableId id, boolean purge) {
    InvalidArgumentException.requireNonNull(id, "drop table", "id");
    checkOpen();
    ReentrantLock lock = coordinations.computeIfAbsent(id, k -> new TableCoordination()).commitLock();
    lock.lock();
    try {
      boolean dropped = catalog.dropTable(identifier(id), purge);
      if (dropped) {
        LOG.info("Dropped table {}{}", id, purge ? " and purged its files" : "");
        operationLog.record("drop_table", id, null, Map.of("purge", purge));
      }
      return dropped;
    } catch (RuntimeException e) {
      throw Errors.translate(e, "drop table " + id);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public FeatureTable openReadOnly(String location) {
    InvalidArgumentException.requireNonNull(location, "open table read-only", "location");
    checkOpen();
    StaticTables.Opened opened = ReadOnlyLocations.open(config, io, location);
    LOG.info("Opened table {} read-only from {}", opened.id(), opened.metadataLocation());
    return new DefaultFeatureTable(new TableHandle(opened.id(), opened.table(), io, new ReentrantLock(), config, workers,
        operationLog, true), background);
  }

  @Override
  public QueryResult operations() {
    checkOpen();
    long start = System.nanoTime();
    return new ListResult(OperationLog.SCHEMA, -1, operationLog.entries(Optional.empty()), System.nanoTime() - start);
  }

  @Override
  public CatalogRecoveryResult recoverCatalog() {
    checkOpen();
    String warehouse = config.warehouseLocation()
        .orElseThrow(() -> new dev.featurestore.InvalidStateException("Cannot recover catalog: the store has no warehouse location"));
    try {
      return CatalogRecovery.recover(catalog, io, warehouse);
    } catch (RuntimeException e) {
      throw Errors.translate(e, "recover catalog from " + warehouse);
    }
  }

  @Override
  public OnlineView onlineView(OnlineViewDefinition definition) {
    InvalidArgumentException.requireNonNull(definition, "open online view", "definition");
    checkOpen();
    synchronized (onlineViews) {
      OnlineView open = onlineViews.get(definition.name());
      if (open != null) {
        if (!open.definition().toString().equals(definition.toString())) {
          throw new InvalidStateException("Cannot open online view " + definition.name()
              + ": it is open with another definition: " + open.definition());
        }
        return open;
      }
      Path directory = definition.directory().or(() -> config.root().map(r -> r.resolve("online")))
          .orElseThrow(() -> new InvalidArgumentException("Cannot open online view " + definition.name()
              + ": the store has no root directory: set directory(...) on the definition"));
      FeatureTable table = table(definition.table());
      OnlineView view = OnlineViews.open(((DefaultFeatureTable) table).handle(), definition, directory,
          () -> onlineViews.remove(definition.name()));
      onlineViews.put(definition.name(), view);
      return view;
    }
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    InvalidArgumentException.requireNonNull(type, "unwrap feature store", "type");
    if (type.isInstance(catalog)) {
      return type.cast(catalog);
    }
    if (type.isInstance(io)) {
      return type.cast(io);
    }
    if (type.isInstance(operationLog)) {
      return type.cast(operationLog);
    }
    throw new InvalidArgumentException("Cannot unwrap feature store: no object of type: " + type.getName());
  }

  private FeatureTable wrap(TableId id, Table loaded) {
    Table table = withMetricsListener(id, loaded);
    TableCoordination coordination = coordinations.computeIfAbsent(id, k -> new TableCoordination());
    return new DefaultFeatureTable(new TableHandle(id, table, table.io(), coordination, config, workers, operationLog, false),
        background);
  }

  /**
   * The table reporting its scans and commits to the configured listener as well as to the
   * catalog's own reporter. Only plain {@link BaseTable}s are re-wrapped: a catalog's own table
   * subclass (server-side scan planning, for example) is left as it is.
   */
  private Table withMetricsListener(TableId id, Table table) {
    if (config.metricsListener().isEmpty() || table.getClass() != BaseTable.class) {
      return table;
    }
    BaseTable base = (BaseTable) table;
    MetricsReporter reporter = MetricsReporters.combine(
        base.reporter(), new ListenerReporter(id, config.metricsListener().get()));
    return new BaseTable(base.operations(), base.name(), reporter);
  }

  static TableIdentifier identifier(TableId id) {
    return TableIdentifier.of(Namespace.of(id.namespace()), id.name());
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new InvalidStateException("Cannot use feature store: it is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      LOG.debug("Closing feature store: {}", config);
      List.copyOf(onlineViews.values()).forEach(OnlineView::close);
      for (dev.featurestore.BackgroundMaintenance running : List.copyOf(background)) {
        running.close(); // before the catalog and FileIO it uses; waits for a running step
      }
      closeAll(owned);
      try {
        workers.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Closes in reverse order of creation (the deque is used as a stack). */
  private static void closeAll(Deque<AutoCloseable> resources) {
    while (!resources.isEmpty()) {
      AutoCloseable resource = resources.pop();
      try {
        resource.close();
      } catch (Exception e) {
        LOG.warn("Cannot close {}: {}", resource, e.toString());
      }
    }
  }

  @Override
  public String toString() {
    return "FeatureStore{" + config + "}";
  }
}
