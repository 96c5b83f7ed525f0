package dev.featurestore.core.storage.s3;

import static java.util.Objects.requireNonNull;

import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import dev.featurestore.StorageProvider;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Opens Iceberg FileIOs and S3 clients for an {@link ObjectStorage} bucket, with the provider's
 * profile (see {@link FeatureStoreS3ClientFactory}). The one public entry point of this package.
 *
 * <pre>{@code
 * try (FileIO io = ObjectStorageIO.open(ObjectStorage.fromEnvironment())) { ... }
 * }</pre>
 */
public final class ObjectStorageIO {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectStorageIO.class);

  private ObjectStorageIO() {}

  /**
   * An S3 FileIO for {@code storage}, after checking that the bucket answers. The caller owns and
   * closes it.
   *
   * @throws StorageException if the bucket cannot be reached, naming the fix (credentials, bucket
   *     name, region, endpoint)
   */
  public static FileIO open(ObjectStorage storage) {
    return open(storage, Map.of());
  }

  /**
   * As {@link #open(ObjectStorage)}, with extra FileIO properties applied last (for example
   * {@code featurestore.storage.max-attempts}).
   */
  public static FileIO open(ObjectStorage storage, Map<String, String> overrides) {
    requireNonNull(storage, "storage is null");
    requireNonNull(overrides, "overrides is null");
    Map<String, String> props = S3Settings.properties(storage, overrides);
    S3Settings settings = S3Settings.from(props);
    S3FileIO io = newFileIO(storage);
    try {
      io.initialize(props);
      Bucket.check(io.client(), storage.bucket());
    } catch (RuntimeException e) {
      io.close();
      throw ObjectStorageErrors.translate(e, "open object storage", settings)
          .orElseGet(() -> new StorageException("Cannot open object storage: " + e.getClass().getSimpleName()
              + ": " + settings.where(), e));
    }
    LOG.debug("Opened object storage: {}", settings);
    return io;
  }

  /**
   * The FileIO properties of {@code storage}: the provider profile's client factory
   * ({@link FeatureStoreS3ClientFactory}), provider, bucket, endpoint, region, path style,
   * credentials and part size. For an engine that opens the store's tables with its own FileIO
   * (Spark's catalog properties): they hold the credentials, so never log them.
   */
  public static Map<String, String> fileIOProperties(ObjectStorage storage) {
    requireNonNull(storage, "storage is null");
    return S3Settings.properties(storage, Map.of());
  }

  /**
   * The FileIO class for {@code storage}, for an engine's {@code io-impl}: B2 rejects DeleteObjects
   * (the SDK always adds a checksum header to it), so B2 deletes one object per request
   * ({@link SingleDeleteS3FileIO}); the others use {@link ReleasingS3FileIO}.
   */
  public static String fileIOImpl(ObjectStorage storage) {
    requireNonNull(storage, "storage is null");
    return newFileIO(storage).getClass().getName();
  }

  private static S3FileIO newFileIO(ObjectStorage storage) {
    return storage.provider() == StorageProvider.B2 ? new SingleDeleteS3FileIO() : new ReleasingS3FileIO();
  }

  /**
   * A new S3 client with {@code storage}'s provider profile (user agent, checksum mode, path
   * style, retries). The caller closes it.
   */
  public static S3Client newClient(ObjectStorage storage) {
    return newClient(storage, Map.of());
  }

  /** As {@link #newClient(ObjectStorage)} with property overrides (e.g. {@code featurestore.storage.max-attempts}). */
  public static S3Client newClient(ObjectStorage storage, Map<String, String> overrides) {
    requireNonNull(storage, "storage is null");
    requireNonNull(overrides, "overrides is null");
    return FeatureStoreS3ClientFactory.build(S3Settings.from(S3Settings.properties(storage, overrides)));
  }

  /** The FileIO property that caps SDK attempts per request (default 8). */
  public static final String MAX_ATTEMPTS = S3Settings.MAX_ATTEMPTS;
  /** The FileIO property for the connect timeout in milliseconds. */
  public static final String CONNECT_TIMEOUT_MS = S3Settings.CONNECT_TIMEOUT_MS;

  /** Translates an SDK failure for {@code storage}, naming the fix; other exceptions pass through. */
  public static RuntimeException translate(RuntimeException e, String what, ObjectStorage storage) {
    requireNonNull(storage, "storage is null");
    if (!(e instanceof SdkException) && !(e.getCause() instanceof SdkException)) {
      return e;
    }
    S3Settings settings = S3Settings.from(S3Settings.properties(storage, Map.of()));
    return ObjectStorageErrors.translate(e, what, settings).map(RuntimeException.class::cast).orElse(e);
  }
}
