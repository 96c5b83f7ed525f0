package dev.featurestore;

import dev.featurestore.FeatureStoreConfig.CatalogKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;

/**
 * The catalog part of a {@link FeatureStoreConfig}: which catalog the store commits through and how
 * (kind, URI, file, properties, commit retries, lock wait). Immutable; built from a {@link Draft}.
 */
final class CatalogSettings {
  private final Path catalogFile;
  private final Catalog catalog;
  private final CatalogKind kind;
  private final String uri;
  private final Map<String, String> properties;
  private final int commitRetries;
  private final Duration busyTimeout;

  private CatalogSettings(Draft draft) {
    this.catalogFile = draft.catalogFile;
    this.catalog = draft.catalog;
    this.kind = draft.catalog != null ? CatalogKind.CUSTOM : draft.kind;
    this.uri = draft.uri;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(draft.properties));
    this.commitRetries = draft.commitRetries;
    this.busyTimeout = draft.busyTimeout;
  }

  /** A draft holding these settings, to derive a variant (a custom catalog's kind is re-derived). */
  Draft toDraft() {
    Draft draft = new Draft();
    draft.catalogFile = catalogFile;
    draft.catalog = catalog;
    draft.kind = kind == CatalogKind.CUSTOM ? CatalogKind.EMBEDDED_SQLITE : kind;
    draft.uri = uri;
    draft.properties.putAll(properties);
    draft.commitRetries = commitRetries;
    draft.busyTimeout = busyTimeout;
    return draft;
  }

  Optional<Path> catalogFile(Path root) {
    if (kind != CatalogKind.EMBEDDED_SQLITE) {
      return Optional.empty();
    }
    if (catalogFile != null) {
      return Optional.of(catalogFile);
    }
    return Optional.ofNullable(root).map(r -> r.resolve("catalog.db"));
  }

  Optional<Catalog> catalog() {
    return Optional.ofNullable(catalog);
  }

  CatalogKind kind() {
    return kind;
  }

  Optional<String> uri() {
    return Optional.ofNullable(uri);
  }

  Map<String, String> properties() {
    return properties;
  }

  int commitRetries() {
    return commitRetries;
  }

  Duration busyTimeout() {
    return busyTimeout;
  }

  /** The catalog as {@code toString()} prints it: no URI query or user info. */
  String describe() {
    return catalog != null ? catalog.name()
        : kind == CatalogKind.EMBEDDED_SQLITE ? "embedded-sqlite"
        : kind.name().toLowerCase(Locale.ROOT) + " " + Redaction.uri(uri);
  }

  /** The mutable catalog settings of a {@link FeatureStoreConfig.Builder}; each setter checks its value. */
  static final class Draft {
    private Path catalogFile;
    private Catalog catalog;
    private CatalogKind kind = CatalogKind.EMBEDDED_SQLITE;
    private String uri;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private int commitRetries = FeatureStoreConfig.DEFAULT_COMMIT_RETRIES;
    private Duration busyTimeout = FeatureStoreConfig.DEFAULT_BUSY_TIMEOUT;

    void catalogFile(Path catalogFile) {
      this.catalogFile = InvalidArgumentException.requireNonNull(catalogFile, "set catalog file", "catalogFile");
    }

    void catalog(Catalog catalog) {
      this.catalog = InvalidArgumentException.requireNonNull(catalog, "set catalog", "catalog");
    }

    void jdbc(String jdbcUrl, String user, String password) {
      InvalidArgumentException.requireNonNull(jdbcUrl, "set JDBC catalog", "jdbcUrl");
      InvalidArgumentException.requireNonNull(user, "set JDBC catalog", "user");
      InvalidArgumentException.requireNonNull(password, "set JDBC catalog", "password");
      if (!jdbcUrl.startsWith("jdbc:")) {
        throw new InvalidArgumentException("Cannot set JDBC catalog: URL does not start with jdbc: " + Redaction.uri(jdbcUrl));
      }
      if (jdbcUrl.startsWith("jdbc:sqlite:")) {
        throw new InvalidArgumentException(
            "Cannot set JDBC catalog: SQLite is the embedded catalog: use catalogFile(path) instead: " + jdbcUrl);
      }
      this.kind = CatalogKind.JDBC;
      this.uri = jdbcUrl;
      properties.put("jdbc.user", user);
      properties.put("jdbc.password", password);
    }

    void rest(String restUri) {
      InvalidArgumentException.requireNonNull(restUri, "set REST catalog", "uri");
      if (!restUri.startsWith("http://") && !restUri.startsWith("https://")) {
        throw new InvalidArgumentException("Cannot set REST catalog: URI is not http(s): " + Redaction.uri(restUri));
      }
      this.kind = CatalogKind.REST;
      this.uri = restUri;
    }

    void property(String key, String value) {
      InvalidArgumentException.requireNonNull(key, "set catalog property", "key");
      InvalidArgumentException.requireNonNull(value, "set catalog property", "value");
      properties.put(key, value);
    }

    void commitRetries(int retries) {
      if (retries < 0 || retries > 1000) {
        throw new InvalidArgumentException("Cannot set commit retries: expected 0 to 1000: " + retries);
      }
      this.commitRetries = retries;
    }

    void busyTimeout(Duration timeout) {
      InvalidArgumentException.requireNonNull(timeout, "set busy timeout", "busyTimeout");
      if (timeout.isNegative()) {
        throw new InvalidArgumentException("Cannot set busy timeout: negative: " + timeout);
      }
      this.busyTimeout = timeout;
    }

    CatalogKind kind() {
      return kind;
    }

    boolean hasCatalog() {
      return catalog != null;
    }

    boolean hasCatalogFile() {
      return catalogFile != null;
    }

    /** The setter that chose a shared catalog, for messages. */
    String kindSetter() {
      return kind == CatalogKind.JDBC ? "jdbcCatalog(...)" : "restCatalog(...)";
    }

    CatalogSettings build() {
      return new CatalogSettings(this);
    }
  }
}
