package dev.featurestore.spark;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ReadVersion;
import dev.featurestore.TableId;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.TrainingSetDefinition;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A feature store's tables on Apache Spark (with Iceberg's Spark runtime): the store's catalog and
 * storage settings as a Spark catalog, table versions as {@link Dataset}s, training sets from the
 * same {@link TrainingSetDefinition} the embedded DuckDB engine runs, and maintenance as Spark
 * actions in the library's vocabulary.
 *
 * <pre>{@code
 * FeatureStoreConfig config = FeatureStore.builder()
 *     .jdbcCatalog("jdbc:postgresql://db:5432/features", "featurestore", password)
 *     .objectStorage(ObjectStorage.fromEnvironment())
 *     .config();
 * SparkSession session = SparkFeatureStore.configure(SparkSession.builder().appName("train"), config)
 *     .getOrCreate();
 * try (FeatureStore store = FeatureStore.open(config)) {
 *   SparkFeatureStore spark = SparkFeatureStore.attach(session, store);
 *   Dataset<Row> week = spark.read(store.table(events).query().atRef("week-48"));
 *   SparkTrainingSet set = spark.trainingSet(definition);
 *   spark.maintenance(events).plan(MaintenancePolicy.defaults()).execute();
 * }
 * }</pre>
 *
 * <p>The Spark catalog is an Iceberg {@code SparkCatalog} named {@value #DEFAULT_CATALOG} (or a name
 * given) with the store's catalog ({@code EngineJdbcCatalog} for the embedded SQLite file and JDBC,
 * Iceberg's REST catalog), the store's FileIO and its settings (a B2 bucket gets the provider
 * profile's S3 client: checksums only when required, the library's user agent, path style,
 * region), and Spark's table cache off. The store itself stays open beside Spark: it resolves
 * versions, plans maintenance and holds the maintenance lease, through its own catalog connection.
 * Thread-safe; the store and session are the caller's to close.
 */
public final class SparkFeatureStore {
  /** The Spark catalog name used when none is given. */
  public static final String DEFAULT_CATALOG = "featurestore";

  /** Iceberg's SQL extensions (procedures, {@code ALTER TABLE ... CREATE TAG}, ...), set by {@link #configure}. */
  public static final String ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions";

  private final SparkSession spark;
  private final FeatureStore store;
  private final String catalog;
  private final SparkReads reads;

  private SparkFeatureStore(SparkSession spark, FeatureStore store, String catalog) {
    this.spark = spark;
    this.store = store;
    this.catalog = catalog;
    this.reads = new SparkReads(spark, catalog);
  }

  /** {@link #configure(SparkSession.Builder, FeatureStoreConfig, String)} with the catalog {@value #DEFAULT_CATALOG}. */
  public static SparkSession.Builder configure(SparkSession.Builder builder, FeatureStoreConfig config) {
    return configure(builder, config, DEFAULT_CATALOG);
  }

  /**
   * Adds the store's catalog as the Spark catalog {@code catalogName} and Iceberg's SQL extensions
   * ({@code spark.sql.extensions}, replacing a value set before) to {@code builder}.
   *
   * @throws dev.featurestore.InvalidStateException if the store's catalog is a caller-supplied
   *     object (no properties to open it with) or the store tiers files to cold storage
   * @throws InvalidArgumentException if an argument is null or the name is not a plain identifier
   */
  public static SparkSession.Builder configure(SparkSession.Builder builder, FeatureStoreConfig config,
      String catalogName) {
    InvalidArgumentException.requireNonNull(builder, "configure Spark session", "builder");
    sessionProperties(config, catalogName).forEach(builder::config);
    return builder.config("spark.sql.extensions", ICEBERG_EXTENSIONS);
  }

  /**
   * The Spark settings of the catalog {@code catalogName} for {@code config}
   * ({@code spark.sql.catalog.<name>} and its options), for {@code spark-submit --conf} or a
   * {@code spark-defaults.conf}. They hold the catalog's and bucket's credentials: never log them.
   */
  public static Map<String, String> sessionProperties(FeatureStoreConfig config, String catalogName) {
    return SparkCatalogProperties.sessionProperties(config, catalogName);
  }

  /** {@link #attach(SparkSession, FeatureStore, String)} with the catalog {@value #DEFAULT_CATALOG}. */
  public static SparkFeatureStore attach(SparkSession spark, FeatureStore store) {
    return attach(spark, store, DEFAULT_CATALOG);
  }

  /**
   * The store's tables on {@code spark} through its catalog {@code catalogName}. If the session has
   * no catalog of that name yet, it is registered now (session settings are read when a catalog is
   * first used), so one session can serve several stores under different names.
   *
   * @throws dev.featurestore.InvalidStateException as {@link #configure}
   */
  public static SparkFeatureStore attach(SparkSession spark, FeatureStore store, String catalogName) {
    InvalidArgumentException.requireNonNull(spark, "attach Spark session", "spark");
    InvalidArgumentException.requireNonNull(store, "attach Spark session", "store");
    String name = SparkCatalogProperties.checkName(catalogName);
    if (spark.conf().getOption("spark.sql.catalog." + name).isEmpty()) {
      sessionProperties(store.config(), name).forEach((key, value) -> spark.conf().set(key, value));
    }
    return new SparkFeatureStore(spark, store, name);
  }

  public SparkSession session() {
    return spark;
  }

  public FeatureStore store() {
    return store;
  }

  /** The Spark catalog's name. */
  public String catalogName() {
    return catalog;
  }

  /** The table's name in Spark SQL: {@code <catalog>.`<namespace>`.`<name>`}. */
  public String tableName(TableId table) {
    InvalidArgumentException.requireNonNull(table, "name table", "table");
    return reads.tableName(table);
  }

  /**
   * The rows {@code query} reads (its version, columns and filter, with the library's null and NaN
   * semantics) as a Dataset: the same rows the query's own {@code execute()} returns.
   *
   * @throws dev.featurestore.SnapshotNotFoundException if the version does not resolve
   * @throws dev.featurestore.NotFoundException if a selected column does not exist in that version
   */
  public Dataset<Row> read(TimeTravelQuery query) {
    InvalidArgumentException.requireNonNull(query, "read table", "query");
    return reads.read(query).rows();
  }

  /** All rows of {@code version} of the table {@code table}; see {@link #read(TimeTravelQuery)}. */
  public Dataset<Row> read(TableId table, ReadVersion version) {
    InvalidArgumentException.requireNonNull(table, "read table", "table");
    InvalidArgumentException.requireNonNull(version, "read table", "version");
    TimeTravelQuery query = store.table(table).query();
    query = switch (version.kind()) {
      case CURRENT -> query.current();
      case SNAPSHOT -> query.asOfSnapshot(version.snapshotId());
      case TIME -> query.asOf(version.time().orElseThrow());
      case REF -> query.atRef(version.ref().orElseThrow());
    };
    return read(query);
  }

  /**
   * The training set of {@code definition}, built by Spark with the same semantics as the embedded
   * engine's (see {@link TrainingSetDefinition}). Each table's version is resolved now.
   */
  public SparkTrainingSet trainingSet(TrainingSetDefinition definition) {
    return SparkTrainingSet.build(spark, reads, definition);
  }

  /** The table's maintenance, run by Spark under the table's maintenance lease. */
  public SparkTableMaintenance maintenance(TableId table) {
    InvalidArgumentException.requireNonNull(table, "maintain table", "table");
    store.table(table); // fails for an unknown table, with the library's message
    return new SparkTableMaintenance(spark, store, table, tableName(table));
  }

  @Override
  public String toString() {
    return "SparkFeatureStore{catalog=" + catalog + ", store=" + store.config() + "}";
  }
}
