package dev.featurestore.core.storage.s3;

import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A real S3 server for a test class: s3proxy in the test JVM on 127.0.0.1 with an ephemeral port,
 * a filesystem blob store in a temporary directory, SigV4 authentication, one bucket, and in front
 * of it one {@link ProviderGate} per provider, each answering as that provider does
 * ({@link #gate(StorageProvider)}, {@link #through(StorageProvider)}; {@link #gate()} is B2's).
 * Register with {@code @RegisterExtension static S3TestServer s3 = new S3TestServer();}. The gates'
 * faults and records are reset before each test. Public for the other modules' tests (core's test-jar).
 */
public final class S3TestServer implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
  public static final String KEY_ID = "fs-test-key-id";
  public static final String SECRET = "fs-test-secret-Zq8Wm3Lr0Tq";
  public static final String BUCKET = "fs-test-bucket";
  /** The bucket's region on B2. */
  public static final String REGION = "us-west-004";
  /** The bucket's region on Amazon S3. */
  public static final String AWS_REGION = "eu-west-1";

  private Path dir;
  private S3Proxy proxy;
  private final Map<StorageProvider, ProviderGate> gates = new EnumMap<>(StorageProvider.class);
  private S3Client direct;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("s3proxy-");
    Path blobs = Files.createDirectories(dir.resolve("blobs"));
    proxy = S3Proxy.builder()
        .blobStore(new FilesystemNio2BlobStore(blobs.toString()))
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, KEY_ID, SECRET)
        .build();
    proxy.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    for (StorageProvider provider : StorageProvider.values()) {
      gates.put(provider, new ProviderGate(proxy.getPort(), provider, region(provider), BUCKET));
    }
    direct = client(directEndpoint());
    direct.createBucket(b -> b.bucket(BUCKET));
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    gates.values().forEach(ProviderGate::reset);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (direct != null) {
      direct.close();
    }
    for (ProviderGate gate : gates.values()) {
      gate.close();
    }
    if (proxy != null) {
      proxy.stop();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  public String directEndpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** The B2 gate. */
  public ProviderGate gate() {
    return gate(StorageProvider.B2);
  }

  /** The gate answering as {@code provider} does. */
  public ProviderGate gate(StorageProvider provider) {
    return gates.get(provider);
  }

  /** The bucket's region as each provider names it: B2's, R2's {@code auto}, MinIO's default, an AWS region. */
  public static String region(StorageProvider provider) {
    return switch (provider) {
      case B2 -> REGION;
      case R2 -> "auto";
      case MINIO -> "us-east-1";
      case S3 -> AWS_REGION;
    };
  }

  /** B2 settings pointing at the B2 gate. */
  public ObjectStorage b2ThroughGate() {
    return through(StorageProvider.B2);
  }

  /**
   * {@code provider}'s profile, as a user configures it (the provider's factory method, its
   * defaults for region and addressing), pointing at that provider's gate. MinIO's endpoint is a
   * host name ({@code localhost}), so a client addressing the bucket virtual-host style would not
   * even reach the gate; on an IP endpoint the SDK addresses path style whatever the setting.
   */
  public ObjectStorage through(StorageProvider provider) {
    ProviderGate gate = gate(provider);
    return switch (provider) {
      case B2 -> ObjectStorage.builder(StorageProvider.B2).endpoint(gate.endpoint()).region(REGION)
          .bucket(BUCKET).credentials(KEY_ID, SECRET).build();
      case R2 -> ObjectStorage.r2(gate.endpoint(), BUCKET, KEY_ID, SECRET);
      case MINIO -> ObjectStorage.minio(gate.hostEndpoint(), BUCKET, KEY_ID, SECRET);
      case S3 -> ObjectStorage.builder(StorageProvider.S3).endpoint(gate.endpoint()).region(AWS_REGION)
          .bucket(BUCKET).credentials(KEY_ID, SECRET).build();
    };
  }

  /** A plain S3 client with the SDK's default checksum settings, talking straight to s3proxy. */
  public S3Client direct() {
    return direct;
  }

  /** A plain S3 client with the SDK's default settings for {@code endpoint}. */
  static S3Client client(String endpoint) {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .httpClientBuilder(ApacheHttpClient.builder())
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY_ID, SECRET)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED)
        .build();
  }

  /** Every key in the bucket under {@code prefix}, listed straight from the server. */
  public List<String> keys(String prefix) {
    List<String> keys = new ArrayList<>();
    for (S3Object o : direct.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents()) {
      keys.add(o.key());
    }
    return keys;
  }
}
