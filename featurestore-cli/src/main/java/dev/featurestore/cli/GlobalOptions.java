package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The options every command takes (before or after the command's name): where the store is, how
 * to reach its bucket and catalog. Secrets come from the environment only, never from the
 * command line (where {@code ps} and shell history would show them).
 */
final class GlobalOptions {
  static final String ENV_ROOT = "FEATURESTORE_ROOT";
  static final String ENV_ACCESS_KEY_ID = "FEATURESTORE_ACCESS_KEY_ID";
  static final String ENV_SECRET_KEY = "FEATURESTORE_SECRET_ACCESS_KEY";
  static final String ENV_CATALOG_USER = "FEATURESTORE_CATALOG_USER";
  static final String ENV_CATALOG_PASSWORD = "FEATURESTORE_CATALOG_PASSWORD";

  private final Map<String, String> env;

  @Option(names = {"-r", "--root"}, paramLabel = "DIR", scope = ScopeType.INHERIT,
      description = "The store's directory (catalog.db, and the warehouse unless it is in a bucket). "
          + "Default: $" + ENV_ROOT + ".")
  Path root;

  @Option(names = "--b2", scope = ScopeType.INHERIT,
      description = "The warehouse is in a B2 bucket, from B2_BUCKET_NAME, B2_ENDPOINT, B2_REGION, "
          + "B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY.")
  boolean b2;

  @Option(names = "--provider", paramLabel = "PROVIDER", scope = ScopeType.INHERIT,
      description = "The warehouse is in a bucket of ${COMPLETION-CANDIDATES}; credentials from $"
          + ENV_ACCESS_KEY_ID + " and $" + ENV_SECRET_KEY + " (or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).")
  StorageProvider provider;

  @Option(names = "--bucket", paramLabel = "NAME", scope = ScopeType.INHERIT, description = "The bucket (with --provider).")
  String bucket;

  @Option(names = "--endpoint", paramLabel = "URI", scope = ScopeType.INHERIT, description = "The S3 endpoint (with --provider).")
  String endpoint;

  @Option(names = "--region", paramLabel = "REGION", scope = ScopeType.INHERIT, description = "The bucket's region (with --provider).")
  String region;

  @Option(names = "--key-prefix", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
      description = "A prefix of every key in the bucket, e.g. team-a/.")
  String keyPrefix;

  @Option(names = "--cold-env", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
      description = "The cold bucket for tiering, from the B2_* variables with this prefix (e.g. COLD_ reads COLD_B2_BUCKET_NAME, ...).")
  String coldEnvPrefix;

  @Option(names = "--catalog-file", paramLabel = "FILE", scope = ScopeType.INHERIT,
      description = "The SQLite catalog file (default: <root>/catalog.db).")
  Path catalogFile;

  @Option(names = "--warehouse", paramLabel = "LOCATION", scope = ScopeType.INHERIT,
      description = "The warehouse location (default: <root>/warehouse, or the bucket's warehouse/).")
  String warehouse;

  @Option(names = "--jdbc-catalog", paramLabel = "URL", scope = ScopeType.INHERIT,
      description = "Commit through a JDBC catalog (PostgreSQL); user and password from $" + ENV_CATALOG_USER
          + " and $" + ENV_CATALOG_PASSWORD + ".")
  String jdbcCatalog;

  @Option(names = "--rest-catalog", paramLabel = "URI", scope = ScopeType.INHERIT,
      description = "Commit through an Iceberg REST catalog.")
  String restCatalog;

  @Option(names = "--catalog-property", paramLabel = "KEY=VALUE", scope = ScopeType.INHERIT,
      description = "A catalog property (repeatable), e.g. warehouse=features.")
  Map<String, String> catalogProperties = new LinkedHashMap<>();

  @Option(names = "--commit-retries", paramLabel = "N", scope = ScopeType.INHERIT,
      description = "Commit attempts on conflicts (default: " + FeatureStoreConfig.DEFAULT_COMMIT_RETRIES + ").")
  Integer commitRetries;

  @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "Print the stack trace of a failure.")
  boolean verbose;

  @Option(names = "--progress", paramLabel = "MODE", defaultValue = "auto", scope = ScopeType.INHERIT,
      description = "Progress of long work on stderr: ${COMPLETION-CANDIDATES} (default: auto: a bar on a terminal, lines when piped).")
  Progress.Mode progress = Progress.Mode.auto;

  GlobalOptions(Map<String, String> env) {
    this.env = env;
  }

  Map<String, String> env() {
    return env;
  }

  /** The store's settings, checked; nothing is opened. */
  FeatureStoreConfig config() {
    return config(true);
  }

  /** The settings; without {@code withStorage}, the bucket options are left out (the doctor reads them itself). */
  FeatureStoreConfig config(boolean withStorage) {
    Path dir = root != null ? root : Optional.ofNullable(env.get(ENV_ROOT)).filter(s -> !s.isBlank()).map(Path::of).orElse(null);
    if (dir == null) {
      throw new InvalidArgumentException("Cannot open store: no store root: pass --root <dir> or set " + ENV_ROOT);
    }
    FeatureStoreConfig.Builder b = FeatureStore.builder().root(dir.toAbsolutePath().normalize());
    if (b2 && provider != null) {
      throw new InvalidArgumentException("Cannot open store: --b2 and --provider both name a bucket: " + provider);
    }
    if (!withStorage) {
      return b.config();
    }
    if (b2) {
      ObjectStorage fromEnv = ObjectStorage.fromEnvironment(env);
      b.objectStorage(keyPrefix == null ? fromEnv : fromEnv.toBuilder().keyPrefix(keyPrefix).build());
    } else if (provider != null) {
      b.objectStorage(storage());
    } else if (bucket != null || endpoint != null || region != null) {
      throw new InvalidArgumentException("Cannot open store: --bucket, --endpoint and --region need --provider: "
          + (bucket != null ? bucket : endpoint != null ? endpoint : region));
    }
    if (coldEnvPrefix != null) {
      Map<String, String> cold = new LinkedHashMap<>();
      env.forEach((k, v) -> {
        if (k.startsWith(coldEnvPrefix)) {
          cold.put(k.substring(coldEnvPrefix.length()), v);
        }
      });
      b.coldStorage(ObjectStorage.fromEnvironment(cold));
    }
    if (catalogFile != null) {
      b.catalogFile(catalogFile.toAbsolutePath().normalize());
    }
    if (warehouse != null) {
      b.warehouseLocation(warehouse);
    }
    if (jdbcCatalog != null) {
      b.jdbcCatalog(jdbcCatalog, env.getOrDefault(ENV_CATALOG_USER, ""), env.getOrDefault(ENV_CATALOG_PASSWORD, ""));
    }
    if (restCatalog != null) {
      b.restCatalog(restCatalog);
    }
    catalogProperties.forEach(b::catalogProperty);
    if (commitRetries != null) {
      b.commitRetries(commitRetries);
    }
    return b.config();
  }

  /**
   * Opens the store. A store that does not exist is not created: commands operate stores, they
   * do not make them by accident (a mistyped root would otherwise become an empty store).
   *
   * @throws NotFoundException if the embedded catalog file does not exist
   */
  FeatureStore open() {
    FeatureStoreConfig config = config();
    Optional<Path> file = config.catalogFile();
    if (file.isPresent() && !Files.isRegularFile(file.get())) {
      throw new NotFoundException("Cannot open store: no catalog file, pass the root of an existing store: " + file.get());
    }
    return FeatureStore.open(config);
  }

  private ObjectStorage storage() {
    ObjectStorage.Builder s = ObjectStorage.builder(provider);
    if (bucket != null) {
      s.bucket(bucket);
    }
    if (endpoint != null) {
      s.endpoint(endpoint);
    }
    if (region != null) {
      s.region(region);
    }
    if (keyPrefix != null) {
      s.keyPrefix(keyPrefix);
    }
    String id = first(ENV_ACCESS_KEY_ID, "AWS_ACCESS_KEY_ID");
    String secret = first(ENV_SECRET_KEY, "AWS_SECRET_ACCESS_KEY");
    if (id == null || secret == null) {
      throw new InvalidArgumentException("Cannot open store: no credentials for " + provider + ": set "
          + ENV_ACCESS_KEY_ID + " and " + ENV_SECRET_KEY);
    }
    return s.credentials(id, secret).build();
  }

  private String first(String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }
}
