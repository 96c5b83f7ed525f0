package dev.featurestore;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A store of versioned feature tables, kept as Apache Iceberg tables. The embedded default is a
 * local directory holding a SQLite catalog ({@code catalog.db}) and a {@code warehouse/} folder:
 * no server, no credentials, no network.
 *
 * <pre>{@code
 * try (FeatureStore store = FeatureStore.openLocal(Path.of("my-store"))) {
 *   FeatureTable events = store.createTable(
 *       TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
 *   events.ingest().synthetic(10_000, 42).commit();
 *   try (QueryResult rows = events.query().select("entity_id", "feature_a").execute()) {
 *     rows.forEach(row -> System.out.println(row.toMap()));
 *   }
 * }
 * }</pre>
 *
 * <p>Thread safety: a store and the tables it returns may be used from several threads.
 * Commits to one table from one store are serialized; commits from other stores or processes
 * are reconciled optimistically with retries ({@link FeatureStoreConfig#commitRetries()}).
 *
 * <p>A store owns its catalog connection, its FileIO and its thread pools, and releases them in
 * {@link #close()}. Catalogs and FileIOs passed in by the caller stay the caller's.
 */
public interface FeatureStore extends AutoCloseable {

  /** A builder for every setting; {@code build()} opens the store. */
  static FeatureStoreConfig.Builder builder() {
    return FeatureStoreConfig.builder();
  }

  /** Opens (creating if needed) the embedded store in {@code root}. */
  static FeatureStore openLocal(Path root) {
    return builder().root(root).build();
  }

  /** Opens a store with the given configuration. */
  static FeatureStore open(FeatureStoreConfig config) {
    return FeatureStoreConfig.provider().open(config);
  }

  /**
   * Checks a configuration without opening a store, and never throws for a failing check: each
   * setting (missing or placeholder values named), and for object storage the endpoint
   * (reachable), the credentials (accepted), the region (matching a B2 endpoint), the bucket
   * (exists) and read, write, list and delete on a probe object under
   * {@code <keyPrefix>.featurestore-doctor/<uuid>} (always deleted again); for a local store, that
   * the root directory is writable. Last, that the catalog opens. Each problem comes with what to
   * change. No credential appears in the report.
   *
   * <p>A static entry point because a store with wrong settings cannot be opened at all; an open
   * store has {@link #doctor()} too.
   *
   * <pre>{@code
   * System.out.print(FeatureStore.doctor(FeatureStore.builder().root(dir).objectStorage(storage).config()));
   * }</pre>
   */
  static DoctorReport doctor(FeatureStoreConfig config) {
    return FeatureStoreConfig.provider().doctor(config);
  }

  /**
   * As {@link #doctor(FeatureStoreConfig)} for a B2 store configured from the process environment
   * ({@link ObjectStorage#fromEnvironment()}) with its catalog in {@code root}: each missing or
   * placeholder variable is its own failed check, named.
   */
  static DoctorReport doctorFromEnvironment(Path root) {
    return doctorFromEnvironment(root, System.getenv());
  }

  /** As {@link #doctorFromEnvironment(Path)}, reading {@code env} instead of the process environment. */
  static DoctorReport doctorFromEnvironment(Path root, Map<String, String> env) {
    return FeatureStoreConfig.provider().doctorFromEnvironment(root, env);
  }

  /** {@link #doctor(FeatureStoreConfig)} for this store's configuration. */
  default DoctorReport doctor() {
    return doctor(config());
  }

  /**
   * The bucket this store lives in, to browse, preview, presign, delete and stage uploads.
   *
   * @throws ValidationException if the store is on local disk (browse its directory
   *     with {@code java.nio.file.Files} instead)
   */
  ObjectBrowser objects();

  /** This store's configuration. */
  FeatureStoreConfig config();

  /**
   * Creates a table.
   *
   * <p>If the table's location already holds metadata files but the catalog has no row for it (a
   * create interrupted by a crash after writing its first metadata file), the create completes it
   * when those files are the first version of an empty table with the same definition, and starts
   * over when they are not table metadata at all (0 bytes, half written); anything else is
   * refused. Another process creating the same table at the same moment makes one of the two
   * creates fail with {@link TableAlreadyExistsException}; load the table then. A create is never
   * retried by the library.
   *
   * @throws TableAlreadyExistsException if a table with the same id exists, or was created by
   *     another process meanwhile
   * @throws AlreadyExistsException if the table's location holds the metadata of another table (a
   *     table with snapshots dropped without purge, a lost catalog, another definition)
   * @throws ValidationException if the definition is invalid (for example a partition spec that
   *     names an unknown column)
   */
  FeatureTable createTable(TableDefinition definition);

  /**
   * Loads a table.
   *
   * @throws TableNotFoundException if it does not exist
   */
  FeatureTable table(TableId id);

  /** Loads a table by {@code namespace.name}. */
  default FeatureTable table(String qualifiedName) {
    return table(TableId.parse(qualifiedName));
  }

  /** Loads a table if it exists. */
  Optional<FeatureTable> findTable(TableId id);

  boolean tableExists(TableId id);

  /** The namespaces that hold at least one table or were created explicitly, sorted. */
  List<String> namespaces();

  /** The tables in a namespace, sorted by name; empty if the namespace does not exist. */
  List<TableId> listTables(String namespace);

  /** Every table in the store, sorted. */
  List<TableId> listTables();

  /**
   * Drops a table from the catalog. With {@code purge}, also deletes its data and metadata files;
   * without it, the files stay in the warehouse.
   *
   * @return true if the table existed and was dropped
   */
  boolean dropTable(TableId id, boolean purge);

  /**
   * Opens a table read-only from its metadata alone, without the catalog: for forensics (an older
   * version, a table whose catalog row was lost) and for tables other tools wrote. {@code location}
   * is either a metadata file ({@code .../metadata/00003-<uuid>.metadata.json}, {@code v3.metadata.json})
   * or a table's base location, whose {@code metadata/version-hint.text} names the current version
   * (as the store and Iceberg's {@code HadoopTables} write it). On a store on object storage a
   * location without a scheme is a key in the store's bucket ({@code warehouse/features/events/metadata/...});
   * otherwise it is a local path or a {@code file:}/{@code s3:} URI the store's FileIO reads.
   *
   * <p>The table is fixed at that version ({@link FeatureTable#refresh()} changes nothing); queries,
   * metadata tables, stats, pruning reports and lookups work; every write throws
   * {@link InvalidStateException} ({@link FeatureTable#isReadOnly()}). It is not registered in the catalog.
   *
   * <pre>{@code
   * FeatureTable old = store.openReadOnly("/data/warehouse/features/events/metadata/00007-1f0c....metadata.json");
   * long rows = old.query().count();
   * }</pre>
   *
   * @throws InvalidArgumentException if the location is null, blank, not a metadata file or table
   *     location, or an invalid object key
   * @throws NotFoundException if no metadata file (or version hint) is there
   * @throws InvalidDataException if the file is not table metadata
   */
  FeatureTable openReadOnly(String location);

  /**
   * The store-wide operations log, oldest first: every upload, export and delete through the object
   * browser, table creation and drop, ingest, schema, partition-spec and bloom-filter change,
   * rollback and ref change, snapshot expiry, compaction, orphan-file removal, tiering and
   * maintenance run, with its time, actor ({@link FeatureStoreConfig#actor()}), operation, table,
   * the snapshot it made (if any) and a JSON object of what changed. Columns: {@code recorded_at}
   * (timestamptz), {@code actor}, {@code operation}, {@code table_name} (null for store-wide
   * operations), {@code snapshot_id} (null if none), {@code details}. Per table:
   * {@link FeatureTable#metadata(MetadataTable)} with {@link MetadataTable#OPERATIONS}.
   *
   * <p>The log lives in the catalog database (table {@code featurestore_operations} of the SQLite
   * file or the JDBC catalog's database), so every process sharing the catalog writes and reads one
   * log. With a REST or caller-supplied catalog it is kept in memory for the store's lifetime.
   * Recording never fails the operation it records: a failed insert is logged as a warning and
   * reported to {@link MetricsListener#onOperationNotRecorded(String, String)}.
   */
  QueryResult operations();

  /**
   * Re-registers, from the warehouse, every table the catalog does not know: for each
   * {@code <warehouse>/<namespace>/<table>/metadata/} folder, the metadata file with the highest
   * version number ({@code NNNNN-<uuid>.metadata.json}) is registered. Use it after the SQLite
   * catalog file was lost or damaged (move a damaged file aside first, with its {@code -wal} and
   * {@code -shm} files, then open the store: it starts with an empty catalog). Tables the catalog
   * knows are left alone, so it is safe to run twice. Tables created with a custom location
   * outside the warehouse are not found. A metadata file that is not table metadata (0 bytes or
   * half written by a killed process) is skipped, logged and named in {@link
   * CatalogRecoveryResult#unreadableMetadata()}; the table is registered with its newest readable
   * file, or not at all if it has none.
   *
   * @throws InvalidStateException if the store's FileIO cannot list files
   * @throws StorageException if the warehouse cannot be listed or a metadata file cannot be read
   */
  CatalogRecoveryResult recoverCatalog();

  /**
   * Opens (or creates) the online view of {@code definition}: the latest feature values per
   * entity of a table, in an embedded store on local disk. Opening a view does not materialize it;
   * call {@link OnlineView#materialize()} (or set a refresh interval). Opening the same view name
   * twice in one store returns the view already open. A view whose stored definition differs
   * (key, event time, features) is rebuilt at its next materialization.
   *
   * @throws TableNotFoundException if the table does not exist
   * @throws InvalidArgumentException if a column is missing or of a type the view cannot hold, or
   *     the store has no root directory and the definition no directory
   * @throws InvalidStateException if the view is already open with another definition
   */
  OnlineView onlineView(OnlineViewDefinition definition);

  /**
   * Escape hatch to the underlying Iceberg objects, outside the compatibility promise: {@code
   * org.apache.iceberg.catalog.Catalog} and {@code org.apache.iceberg.io.FileIO} (and, for engine
   * modules such as featurestore-spark, the store's {@code OperationLog} of featurestore-core).
   *
   * @throws InvalidArgumentException if this store holds nothing of that type
   */
  <T> T unwrap(Class<T> type);

  /** Releases the catalog, FileIO and thread pools. Safe to call twice. */
  @Override
  void close();
}
