package dev.featurestore.core.storage.s3;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOProperties;

/**
 * The settings a client factory needs, carried in the FileIO properties map (S3FileIO hands its
 * properties to the factory). Standard Iceberg keys where Iceberg has one, ours otherwise.
 * {@link #toString()} prints no credentials.
 */
final class S3Settings {
  static final String PROVIDER = "featurestore.storage.provider";
  static final String BUCKET = "featurestore.storage.bucket";
  static final String MAX_ATTEMPTS = "featurestore.storage.max-attempts";
  static final String CONNECT_TIMEOUT_MS = "featurestore.storage.connect-timeout-ms";
  static final String SOCKET_TIMEOUT_MS = "featurestore.storage.socket-timeout-ms";

  static final int DEFAULT_MAX_ATTEMPTS = 8;
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);
  /** B2's minimum part is 5,000,000 bytes; Iceberg's own minimum (5 MiB) is above it. 32 MiB parts. */
  static final int MULTIPART_SIZE = 32 * 1024 * 1024;

  final StorageProvider provider;
  final String bucket;
  final String endpoint;
  final String region;
  final boolean pathStyle;
  final String accessKeyId;
  final String secretKey;
  final int maxAttempts;
  final Duration connectTimeout;
  final Duration socketTimeout;

  private S3Settings(Map<String, String> props) {
    this.provider = StorageProvider.valueOf(require(props, PROVIDER).toUpperCase(Locale.ROOT));
    this.bucket = props.get(BUCKET);
    this.endpoint = props.get(S3FileIOProperties.ENDPOINT);
    this.region = require(props, AwsClientProperties.CLIENT_REGION);
    this.pathStyle = Boolean.parseBoolean(props.getOrDefault(S3FileIOProperties.PATH_STYLE_ACCESS, "false"));
    this.accessKeyId = require(props, S3FileIOProperties.ACCESS_KEY_ID);
    this.secretKey = require(props, S3FileIOProperties.SECRET_ACCESS_KEY);
    this.maxAttempts = Integer.parseInt(props.getOrDefault(MAX_ATTEMPTS, Integer.toString(DEFAULT_MAX_ATTEMPTS)));
    this.connectTimeout = millis(props, CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT);
    this.socketTimeout = millis(props, SOCKET_TIMEOUT_MS, DEFAULT_SOCKET_TIMEOUT);
    if (maxAttempts < 1 || maxAttempts > 50) {
      throw new InvalidArgumentException("Cannot set " + MAX_ATTEMPTS + ": expected 1 to 50: " + maxAttempts);
    }
  }

  static S3Settings from(Map<String, String> props) {
    return new S3Settings(props);
  }

  /** The FileIO properties for {@code storage}, with {@code overrides} applied last. */
  static Map<String, String> properties(ObjectStorage storage, Map<String, String> overrides) {
    Map<String, String> props = new HashMap<>();
    props.put(S3FileIOProperties.CLIENT_FACTORY, FeatureStoreS3ClientFactory.class.getName());
    props.put(PROVIDER, storage.provider().name());
    props.put(BUCKET, storage.bucket());
    storage.endpoint().ifPresent(e -> props.put(S3FileIOProperties.ENDPOINT, e));
    props.put(AwsClientProperties.CLIENT_REGION, storage.region());
    props.put(S3FileIOProperties.PATH_STYLE_ACCESS, Boolean.toString(storage.pathStyle()));
    props.put(S3FileIOProperties.ACCESS_KEY_ID, storage.accessKeyId());
    props.put(S3FileIOProperties.SECRET_ACCESS_KEY, storage.secretKey());
    props.put(S3FileIOProperties.MULTIPART_SIZE, Integer.toString(MULTIPART_SIZE));
    // Iceberg's own MD5/checksum option adds Content-MD5 only; keep it off, B2 needs nothing.
    props.put(S3FileIOProperties.CHECKSUM_ENABLED, "false");
    props.putAll(overrides);
    return props;
  }

  private static String require(Map<String, String> props, String key) {
    String value = props.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("Cannot create S3 client: missing property: " + key);
    }
    return value;
  }

  private static Duration millis(Map<String, String> props, String key, Duration dflt) {
    String value = props.get(key);
    return value == null ? dflt : Duration.ofMillis(Long.parseLong(value));
  }

  /** Where the bucket is, for messages: never the credentials. */
  String where() {
    return "bucket " + bucket + " at " + (endpoint == null ? "the AWS endpoint for " + region : endpoint);
  }

  @Override
  public String toString() {
    return "S3Settings{provider=" + provider + ", bucket=" + bucket + ", endpoint=" + endpoint
        + ", region=" + region + ", pathStyle=" + pathStyle + ", credentials=<redacted>}";
  }
}
