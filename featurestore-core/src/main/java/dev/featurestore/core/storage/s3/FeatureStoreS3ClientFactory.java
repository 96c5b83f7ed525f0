package dev.featurestore.core.storage.s3;

import dev.featurestore.StorageProvider;
import java.net.URI;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIOAwsClientFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.LegacyMd5Plugin;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Iceberg's S3 client factory ({@code s3.client-factory-impl}) with one profile per provider.
 * Public with a no-arg constructor because Iceberg loads it by class name; not part of the
 * library's compatibility promise.
 *
 * <ul>
 *   <li>B2: endpoint and region, path style, and checksums only when an operation requires one
 *       ({@code WHEN_REQUIRED}): B2 answers {@code 400 InvalidArgument: Unsupported header} to the
 *       SDK's default flexible checksum headers.
 *   <li>R2: region {@code auto}, checksums only when required too: R2 answers 501 NotImplemented
 *       to the SDK's default checksum headers on uploads (Cloudflare documents {@code when_required}
 *       for Java SDK 2.30+).
 *   <li>MinIO: path style; {@code DeleteObjects} with {@code Content-MD5} ({@link LegacyMd5Plugin}),
 *       which MinIO releases before 2025-01 require.
 *   <li>AWS: the SDK's defaults (checksums on uploads, validated on reads).
 * </ul>
 *
 * <p>Each profile is tested against a gate that refuses what its provider refuses (core's test-jar,
 * {@code ProviderGate}; see docs/object-storage.md).
 *
 * <p>Every request carries the library's user-agent suffix ({@link #USER_AGENT}). Credentials come
 * from the FileIO properties through a static provider and are never logged.
 */
public final class FeatureStoreS3ClientFactory implements S3FileIOAwsClientFactory {
  private static final long serialVersionUID = 1L;

  /** The user-agent suffix every request carries. */
  public static final String USER_AGENT = "featurestore/" + version();

  private Map<String, String> properties = Map.of();

  public FeatureStoreS3ClientFactory() {}

  @Override
  public void initialize(Map<String, String> props) {
    // Fail early on missing settings; the client itself is built on first use.
    S3Settings.from(props);
    this.properties = Map.copyOf(props);
  }

  @Override
  public S3Client s3() {
    return build(S3Settings.from(properties));
  }

  @Override
  public S3AsyncClient s3Async() {
    // The async client is only used by Iceberg's analytics accelerator and CRT paths, which the
    // library leaves off; no async HTTP client is on the classpath.
    throw new UnsupportedOperationException("Cannot create async S3 client: not supported by featurestore");
  }

  static S3Client build(S3Settings settings) {
    S3ClientBuilder builder = S3Client.builder()
        .region(Region.of(settings.region))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(settings.accessKeyId, settings.secretKey)))
        .httpClientBuilder(ApacheHttpClient.builder()
            .connectionTimeout(settings.connectTimeout)
            .socketTimeout(settings.socketTimeout)
            .maxConnections(64))
        .overrideConfiguration(c -> c
            .putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_SUFFIX, USER_AGENT)
            .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(settings.maxAttempts)
                // Short, capped backoff: a flaky store is retried quickly, an unreachable one
                // fails within seconds. No circuit breaker: a burst of 503s must not turn off
                // retries for the rest of a commit.
                .backoffStrategy(BackoffStrategy.exponentialDelay(
                    java.time.Duration.ofMillis(50), java.time.Duration.ofSeconds(2)))
                .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(
                    java.time.Duration.ofMillis(200), java.time.Duration.ofSeconds(5)))
                .circuitBreakerEnabled(false)
                .build()));
    if (settings.endpoint != null) {
      builder.endpointOverride(URI.create(settings.endpoint));
    }
    builder.forcePathStyle(settings.pathStyle);
    if (settings.provider == StorageProvider.B2 || settings.provider == StorageProvider.R2) {
      builder.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    if (settings.provider == StorageProvider.MINIO) {
      // DeleteObjects with Content-MD5 too, as before SDK 2.30: MinIO releases before 2025-01
      // refuse it without (400 MissingContentMD5), and self-hosted servers run them for years.
      builder.addPlugin(LegacyMd5Plugin.create());
    }
    return builder.build();
  }

  private static String version() {
    String v = FeatureStoreS3ClientFactory.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0" : v;
  }

  @Override
  public String toString() {
    return "FeatureStoreS3ClientFactory{" + (properties.isEmpty() ? "uninitialized" : S3Settings.from(properties)) + "}";
  }
}
