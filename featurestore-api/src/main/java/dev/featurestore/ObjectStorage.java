package dev.featurestore;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a store keeps its tables when the bucket is the warehouse: an S3-compatible bucket
 * (Backblaze B2, Cloudflare R2, MinIO, Amazon S3) and the credentials to reach it. Immutable.
 *
 * <p>Tables live under {@code <keyPrefix>warehouse/} in the bucket; the SQLite catalog stays a
 * local file (see {@link FeatureStoreConfig.Builder#objectStorage(ObjectStorage)}).
 *
 * <pre>{@code
 * try (FeatureStore store = FeatureStore.builder()
 *     .root(Path.of("my-store"))                      // holds catalog.db only
 *     .objectStorage(ObjectStorage.fromEnvironment())  // B2_BUCKET_NAME, B2_ENDPOINT, ...
 *     .build()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Credentials never appear in {@link #toString()}, in logs or in exception messages.
 */
public final class ObjectStorage {
  /** Environment variable: the B2 bucket name. */
  public static final String ENV_BUCKET = "B2_BUCKET_NAME";
  /** Environment variable: the bucket's S3 endpoint, e.g. {@code https://s3.us-west-004.backblazeb2.com}. */
  public static final String ENV_ENDPOINT = "B2_ENDPOINT";
  /** Environment variable: the bucket's region, e.g. {@code us-west-004} (derived from the endpoint if absent). */
  public static final String ENV_REGION = "B2_REGION";
  /** Environment variable: the application key id. */
  public static final String ENV_KEY_ID = "B2_APPLICATION_KEY_ID";
  /** Environment variable: the application key (the secret). */
  public static final String ENV_KEY = "B2_APPLICATION_KEY";

  private static final Pattern B2_ENDPOINT =
      Pattern.compile("https?://s3\\.([a-z0-9-]+)\\.backblazeb2\\.com/?", Pattern.CASE_INSENSITIVE);
  static final Pattern BUCKET = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9.-]{1,61}[a-zA-Z0-9]");
  static final Pattern REGION = Pattern.compile("[a-z0-9-]{2,40}");

  private final StorageProvider provider;
  private final String bucket;
  private final String endpoint;
  private final String region;
  private final String accessKeyId;
  private final String secretKey;
  private final String keyPrefix;
  private final boolean pathStyle;

  private ObjectStorage(Builder builder, String endpoint, String region, boolean pathStyle) {
    this.provider = builder.provider;
    this.bucket = builder.bucket;
    this.endpoint = endpoint;
    this.region = region;
    this.accessKeyId = builder.accessKeyId;
    this.secretKey = builder.secretKey;
    this.keyPrefix = builder.keyPrefix;
    this.pathStyle = pathStyle;
  }

  /** A builder for {@code provider}; set bucket, credentials and what the provider needs. */
  public static Builder builder(StorageProvider provider) {
    return new Builder(InvalidArgumentException.requireNonNull(provider, "configure object storage", "provider"));
  }

  /**
   * Backblaze B2: the endpoint is {@code https://s3.<region>.backblazeb2.com}.
   *
   * @param region the bucket's region as shown in the B2 console, e.g. {@code us-west-004}
   */
  public static ObjectStorage b2(String bucket, String region, String keyId, String key) {
    return builder(StorageProvider.B2).bucket(bucket).region(region).credentials(keyId, key).build();
  }

  /**
   * Cloudflare R2.
   *
   * @param accountIdOrEndpoint the account id ({@code https://<id>.r2.cloudflarestorage.com} is
   *     used) or a full endpoint URI
   */
  public static ObjectStorage r2(String accountIdOrEndpoint, String bucket, String keyId, String key) {
    InvalidArgumentException.requireNonNull(accountIdOrEndpoint, "configure R2 storage", "accountIdOrEndpoint");
    String endpoint = accountIdOrEndpoint.contains("://")
        ? accountIdOrEndpoint
        : "https://" + accountIdOrEndpoint + ".r2.cloudflarestorage.com";
    return builder(StorageProvider.R2).endpoint(endpoint).bucket(bucket).credentials(keyId, key).build();
  }

  /** MinIO or another self-hosted S3 server, addressed path-style. */
  public static ObjectStorage minio(String endpoint, String bucket, String keyId, String key) {
    return builder(StorageProvider.MINIO).endpoint(endpoint).bucket(bucket).credentials(keyId, key).build();
  }

  /** Amazon S3 in {@code region}. */
  public static ObjectStorage s3(String bucket, String region, String keyId, String key) {
    return builder(StorageProvider.S3).bucket(bucket).region(region).credentials(keyId, key).build();
  }

  /**
   * B2 settings from the process environment: {@value #ENV_BUCKET}, {@value #ENV_ENDPOINT},
   * {@value #ENV_REGION} (optional when the endpoint names it), {@value #ENV_KEY_ID} and
   * {@value #ENV_KEY}. With {@value #ENV_REGION} set, {@value #ENV_ENDPOINT} may be any http(s)
   * endpoint (a proxy, a custom domain, a local stand-in) and is used as given, as
   * {@link Builder#endpoint(String)} does; the store logs a warning, and the doctor reports one,
   * when it does not look like B2 or is plain {@code http://}.
   *
   * @throws ValidationException naming every missing, placeholder or inconsistent variable and
   *     what to set it to
   */
  public static ObjectStorage fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** As {@link #fromEnvironment()}, reading {@code env} instead of the process environment. */
  public static ObjectStorage fromEnvironment(Map<String, String> env) {
    return B2Environment.read(env);
  }

  /** True for values left from a template: {@code changeme}, {@code your-...}, {@code <...>}, {@code xxx}. */
  public static boolean isPlaceholder(String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    return v.isEmpty()
        || v.equals("changeme") || v.equals("change-me") || v.equals("change_me")
        || v.startsWith("your-") || v.startsWith("your_")
        || (v.startsWith("<") && v.endsWith(">"))
        || v.matches("x{3,}")
        || v.contains("xxxx");
  }

  /** The region named by a B2 endpoint {@code https://s3.<region>.backblazeb2.com}, if it is one. */
  public static Optional<String> b2Region(String endpoint) {
    Matcher m = B2_ENDPOINT.matcher(endpoint.strip());
    return m.matches() ? Optional.of(m.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
  }

  /** Null if {@code endpoint} is an absolute http(s) URI with a host, else the reason. */
  static String checkEndpoint(String endpoint) {
    try {
      URI uri = new URI(endpoint);
      if (uri.getScheme() == null || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))) {
        return "expected an http or https URI";
      }
      if (uri.getHost() == null) {
        return "no host";
      }
      if (uri.getUserInfo() != null) {
        return "credentials in the URI";
      }
      return null;
    } catch (URISyntaxException e) {
      return "not a URI";
    }
  }

  public StorageProvider provider() {
    return provider;
  }

  public String bucket() {
    return bucket;
  }

  /** The S3 endpoint URI; empty for Amazon S3 with its default endpoints. */
  public Optional<String> endpoint() {
    return Optional.ofNullable(endpoint);
  }

  public String region() {
    return region;
  }

  /** The access key id (B2: application key id). Handle with care; never log it. */
  public String accessKeyId() {
    return accessKeyId;
  }

  /** The secret key (B2: application key). Handle with care; never log it. */
  public String secretKey() {
    return secretKey;
  }

  /** Prefix of every key the library writes: empty, or ending with {@code /}. */
  public String keyPrefix() {
    return keyPrefix;
  }

  /** Whether requests address the bucket in the path ({@code endpoint/bucket/key}). */
  public boolean pathStyle() {
    return pathStyle;
  }

  /**
   * Returns {@code key} if it is a usable object key, else throws {@link InvalidArgumentException}
   * ({@code Cannot use object key: <reason>: <key>}): empty, a leading {@code /}, {@code .},
   * {@code ..} or empty segments, a backslash or control character, over 1024 bytes of UTF-8.
   * Every object call of the library checks its keys with this one rule.
   */
  public static String checkKey(String key) {
    return ObjectKeyRules.check(key);
  }

  /** As {@link #checkKey}, and the key must name an object, not a folder (staged uploads, exports). */
  public static String checkObjectName(String name) {
    return ObjectKeyRules.checkName(name);
  }

  /** {@link #keyPrefix()} + {@code relativeKey}, checked as {@link #checkKey}: it cannot leave the prefix. */
  public String key(String relativeKey) {
    return ObjectKeyRules.resolve(keyPrefix, relativeKey);
  }

  /** The warehouse location in this bucket: {@code s3://<bucket>/<keyPrefix>warehouse}. */
  public String warehouseLocation() {
    return "s3://" + bucket + "/" + keyPrefix + "warehouse";
  }

  public Builder toBuilder() {
    Builder builder = new Builder(provider);
    builder.bucket = bucket;
    builder.endpoint = endpoint;
    builder.region = region;
    builder.accessKeyId = accessKeyId;
    builder.secretKey = secretKey;
    builder.keyPrefix = keyPrefix;
    builder.pathStyle = pathStyle;
    builder.pathStyleSet = true;
    return builder;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ObjectStorage other)) {
      return false;
    }
    return provider == other.provider && bucket.equals(other.bucket) && Objects.equals(endpoint, other.endpoint)
        && region.equals(other.region) && accessKeyId.equals(other.accessKeyId) && secretKey.equals(other.secretKey)
        && keyPrefix.equals(other.keyPrefix) && pathStyle == other.pathStyle;
  }

  @Override
  public int hashCode() {
    return Objects.hash(provider, bucket, endpoint, region, keyPrefix, pathStyle);
  }

  @Override
  public String toString() {
    return "ObjectStorage{provider=" + provider + ", bucket=" + bucket + ", endpoint=" + endpoint
        + ", region=" + region + ", keyPrefix=" + keyPrefix + ", pathStyle=" + pathStyle
        + ", credentials=<redacted>}";
  }

  /**
   * Builds an {@link ObjectStorage}. Each setter checks its value; {@link #build()} checks the
   * settings together and fills the provider's defaults. Not thread-safe.
   */
  public static final class Builder {
    private final StorageProvider provider;
    private String bucket;
    private String endpoint;
    private String region;
    private String accessKeyId;
    private String secretKey;
    private String keyPrefix = "";
    private boolean pathStyle;
    private boolean pathStyleSet;

    private Builder(StorageProvider provider) {
      this.provider = provider;
    }

    public Builder bucket(String bucket) {
      InvalidArgumentException.requireNonNull(bucket, "set bucket", "bucket");
      InvalidArgumentException.check(BUCKET.matcher(bucket).matches(),
          "Cannot set bucket: expected 3 to 63 letters, digits, dots or hyphens: %s", FeatureStoreException.printable(bucket));
      this.bucket = bucket;
      return this;
    }

    /** The S3 endpoint, e.g. {@code https://s3.us-west-004.backblazeb2.com}. */
    public Builder endpoint(String endpoint) {
      InvalidArgumentException.requireNonNull(endpoint, "set endpoint", "endpoint");
      String reason = checkEndpoint(endpoint.strip());
      if (reason != null) {
        // An endpoint with user info may carry a secret: do not echo it.
        throw new InvalidArgumentException("Cannot set endpoint: " + reason
            + (reason.startsWith("credentials") ? "" : ": " + endpoint));
      }
      String e = endpoint.strip();
      this.endpoint = e.endsWith("/") ? e.substring(0, e.length() - 1) : e;
      return this;
    }

    public Builder region(String region) {
      InvalidArgumentException.requireNonNull(region, "set region", "region");
      InvalidArgumentException.check(REGION.matcher(region).matches(),
          "Cannot set region: expected lower-case letters, digits and hyphens: %s", FeatureStoreException.printable(region));
      this.region = region;
      return this;
    }

    /** The access key id and secret key (B2: application key id and application key). */
    public Builder credentials(String accessKeyId, String secretKey) {
      InvalidArgumentException.requireNonNull(accessKeyId, "set credentials", "accessKeyId");
      InvalidArgumentException.requireNonNull(secretKey, "set credentials", "secretKey");
      InvalidArgumentException.check(!accessKeyId.isBlank(), "Cannot set credentials: access key id is blank");
      InvalidArgumentException.check(!secretKey.isBlank(), "Cannot set credentials: secret key is blank");
      this.accessKeyId = accessKeyId.strip();
      this.secretKey = secretKey.strip();
      return this;
    }

    /**
     * A prefix for every key the library writes, e.g. {@code team-a/}: tables go under
     * {@code team-a/warehouse/}. Default empty.
     */
    public Builder keyPrefix(String keyPrefix) {
      InvalidArgumentException.requireNonNull(keyPrefix, "set key prefix", "keyPrefix");
      String p = keyPrefix;
      if (!p.isEmpty()) {
        ObjectKeyRules.check(p);
        p = p.endsWith("/") ? p : p + "/";
      }
      this.keyPrefix = p;
      return this;
    }

    /** Path-style addressing ({@code endpoint/bucket/key}); default: on for B2 and MinIO. */
    public Builder pathStyle(boolean pathStyle) {
      this.pathStyle = pathStyle;
      this.pathStyleSet = true;
      return this;
    }

    /**
     * The settings, checked together.
     *
     * @throws ValidationException if a required setting is missing or the endpoint and region
     *     disagree
     */
    public ObjectStorage build() {
      if (bucket == null) {
        throw new ValidationException("Cannot configure object storage: bucket is not set");
      }
      if (accessKeyId == null) {
        throw new ValidationException("Cannot configure object storage: credentials are not set");
      }
      String endpoint0 = endpoint;
      String region0 = region;
      boolean pathStyle0 = pathStyle;
      switch (provider) {
        case B2 -> {
          if (endpoint0 == null && region0 == null) {
            throw new ValidationException(
                "Cannot configure object storage: B2 needs the bucket's endpoint or region: " + bucket);
          }
          if (endpoint0 != null) {
            Optional<String> endpointRegion = b2Region(endpoint0);
            if (region0 == null) {
              if (endpointRegion.isEmpty()) {
                throw new ValidationException(
                    "Cannot configure object storage: set the region, the endpoint does not name it: " + endpoint0);
              }
              region0 = endpointRegion.get();
            } else if (endpointRegion.isPresent() && !endpointRegion.get().equals(region0)) {
              throw new ValidationException("Cannot configure object storage: region " + region0
                  + " does not match the endpoint, use " + endpointRegion.get() + ": " + endpoint0);
            }
          } else {
            endpoint0 = "https://s3." + region0 + ".backblazeb2.com";
          }
          if (!pathStyleSet) {
            pathStyle0 = true;
          }
        }
        case R2 -> {
          if (endpoint0 == null) {
            throw new ValidationException(
                "Cannot configure object storage: R2 needs the endpoint https://<account-id>.r2.cloudflarestorage.com: " + bucket);
          }
          if (region0 == null) {
            region0 = "auto";
          }
        }
        case MINIO -> {
          if (endpoint0 == null) {
            throw new ValidationException("Cannot configure object storage: MinIO needs the server's endpoint: " + bucket);
          }
          if (region0 == null) {
            region0 = "us-east-1";
          }
          if (!pathStyleSet) {
            pathStyle0 = true;
          }
        }
        case S3 -> {
          if (region0 == null) {
            throw new ValidationException("Cannot configure object storage: S3 needs the bucket's region: " + bucket);
          }
        }
        default -> throw new InvalidArgumentException("Cannot configure object storage: unknown provider: " + provider);
      }
      return new ObjectStorage(this, endpoint0, region0, pathStyle0);
    }
  }
}
