package dev.featurestore.core.storage.s3;

import static java.util.Objects.requireNonNull;

import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * A store's bucket, addressed by keys relative to its key prefix: resolves and checks keys, and
 * holds the S3 client (the FileIO's own when there is one) and a presigner with the same
 * profile. Thread-safe. Closing it closes what it created, never a FileIO's client.
 */
public final class Bucket implements AutoCloseable {
  private final ObjectStorage storage;
  private final S3Settings settings;
  private final S3Client client;
  private final boolean ownsClient;
  private volatile S3Presigner presigner;

  private Bucket(ObjectStorage storage, S3Client client, boolean ownsClient) {
    this.storage = storage;
    this.settings = S3Settings.from(S3Settings.properties(storage, Map.of()));
    this.client = client;
    this.ownsClient = ownsClient;
  }

  /** A bucket with its own client (closed with it). */
  public static Bucket open(ObjectStorage storage) {
    return open(storage, Map.of());
  }

  /** A bucket with its own client built with property overrides (see {@link ObjectStorageIO#MAX_ATTEMPTS}). */
  public static Bucket open(ObjectStorage storage, Map<String, String> overrides) {
    requireNonNull(storage, "storage is null");
    return new Bucket(storage, ObjectStorageIO.newClient(storage, overrides), true);
  }

  /** A bucket using {@code io}'s S3 client when it is an S3FileIO, else its own. */
  public static Bucket over(ObjectStorage storage, FileIO io) {
    requireNonNull(storage, "storage is null");
    requireNonNull(io, "io is null");
    if (io instanceof S3FileIO s3) {
      return new Bucket(storage, s3.client(), false);
    }
    return open(storage);
  }

  public ObjectStorage storage() {
    return storage;
  }

  public String name() {
    return storage.bucket();
  }

  public S3Client client() {
    return client;
  }

  /** The full key of {@code relativeKey} (checked; it cannot leave the prefix). */
  public String key(String relativeKey) {
    return storage.key(relativeKey);
  }

  /** {@code fullKey} without the key prefix. */
  public String relative(String fullKey) {
    return fullKey.startsWith(storage.keyPrefix()) ? fullKey.substring(storage.keyPrefix().length()) : fullKey;
  }

  /** {@code s3://<bucket>/<prefix><relativeKey>}. */
  public String location(String relativeKey) {
    return "s3://" + storage.bucket() + "/" + key(relativeKey);
  }

  /**
   * Checks that the bucket answers, throwing the SDK's exception if not. An answer to a HEAD has
   * no body, so a HEAD refused without an error code (a 400: wrong region, malformed request) is
   * asked again as a one-key listing, whose error names the cause; that error is thrown when it
   * has a code and the same status, else the HEAD's.
   */
  public static void check(S3Client client, String bucket) {
    try {
      client.headBucket(b -> b.bucket(bucket));
    } catch (S3Exception head) {
      String code = head.awsErrorDetails() == null ? null : head.awsErrorDetails().errorCode();
      if (head.statusCode() != 400 || (code != null && !code.isEmpty())) {
        throw head;
      }
      try {
        client.listObjectsV2(b -> b.bucket(bucket).maxKeys(1));
      } catch (S3Exception list) {
        String listCode = list.awsErrorDetails() == null ? null : list.awsErrorDetails().errorCode();
        if (list.statusCode() == head.statusCode() && listCode != null && !listCode.isEmpty()) {
          list.addSuppressed(head);
          throw list;
        }
        head.addSuppressed(list);
      } catch (RuntimeException other) {
        head.addSuppressed(other);
      }
      throw head;
    }
  }

  /** The object's HEAD, or empty if it does not exist. */
  public Optional<HeadObjectResponse> headIfExists(String relativeKey) {
    String key = key(relativeKey);
    try {
      return Optional.of(client.headObject(b -> b.bucket(storage.bucket()).key(key)));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw translate(e, "read object " + relativeKey);
    } catch (SdkException e) {
      throw translate(e, "read object " + relativeKey);
    }
  }

  /** A presigned GET URL for the object. */
  public URI presignGet(String relativeKey, Duration expiry) {
    String key = key(relativeKey);
    try {
      return URI.create(presigner().presignGetObject(p -> p.signatureDuration(expiry)
          .getObjectRequest(g -> g.bucket(storage.bucket()).key(key))).url().toString());
    } catch (SdkException e) {
      throw translate(e, "presign object " + relativeKey);
    }
  }

  private S3Presigner presigner() {
    S3Presigner p = presigner;
    if (p == null) {
      synchronized (this) {
        p = presigner;
        if (p == null) {
          S3Presigner.Builder builder = S3Presigner.builder()
              .region(Region.of(settings.region))
              .credentialsProvider(StaticCredentialsProvider.create(
                  AwsBasicCredentials.create(settings.accessKeyId, settings.secretKey)))
              .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(settings.pathStyle).build());
          if (settings.endpoint != null) {
            builder.endpointOverride(URI.create(settings.endpoint));
          }
          p = builder.build();
          presigner = p;
        }
      }
    }
    return p;
  }

  /**
   * A {@link StorageException} naming the fix for an SDK failure; {@link NotFoundException} for a
   * missing key; anything else passes through.
   */
  public RuntimeException translate(RuntimeException e, String what) {
    if (e instanceof NoSuchKeyException || (e instanceof S3Exception s3 && s3.statusCode() == 404
        && !"NoSuchBucket".equals(s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode()))) {
      return new NotFoundException("Cannot " + what + ": no such object", e);
    }
    return ObjectStorageErrors.translate(e, what, settings).map(RuntimeException.class::cast).orElse(e);
  }

  @Override
  public void close() {
    S3Presigner p = presigner;
    if (p != null) {
      p.close();
    }
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "Bucket{" + settings + ", keyPrefix=" + storage.keyPrefix() + "}";
  }
}
