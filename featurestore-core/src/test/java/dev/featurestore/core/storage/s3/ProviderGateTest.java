package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;
import software.amazon.awssdk.services.s3.model.StorageClass;

/**
 * Each provider's gate refuses what it models, answering as that provider does (so a gate cannot
 * silently pass everything), and each provider's profile gets through its own gate.
 */
class ProviderGateTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  static final String BUCKET = S3TestServer.BUCKET;

  // ---- every provider

  @ParameterizedTest
  @EnumSource(StorageProvider.class)
  void profile_putGetListDeleteAndBulkDelete_getThroughItsGate(StorageProvider provider) throws Exception {
    String prefix = "profile/" + provider + "/";
    try (S3Client client = ObjectStorageIO.newClient(s3.through(provider))) {
      client.putObject(b -> b.bucket(BUCKET).key(prefix + "one.txt"), RequestBody.fromString("hello " + provider));
      assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key(prefix + "one.txt")).asUtf8String())
          .isEqualTo("hello " + provider);
      assertThat(client.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix)).contents()).hasSize(1);
      client.deleteObject(b -> b.bucket(BUCKET).key(prefix + "one.txt"));
    }
    try (FileIO io = ObjectStorageIO.open(s3.through(provider))) {
      List<String> paths = Stream.of("a", "b", "c").map(n -> "s3://" + BUCKET + "/" + prefix + "bulk/" + n).toList();
      for (String path : paths) {
        try (PositionOutputStream out = io.newOutputFile(path).createOrOverwrite()) {
          out.write(path.getBytes(StandardCharsets.UTF_8));
        }
      }
      assertThat(s3.keys(prefix)).hasSize(3);
      ((SupportsBulkOperations) io).deleteFiles(paths);
    }
    assertThat(s3.keys(prefix)).isEmpty();
    ProviderGate gate = s3.gate(provider);
    assertThat(gate.refusals()).isEmpty();
    assertThat(gate.seen()).isNotEmpty().allSatisfy(seen ->
        assertThat(seen.headers().get("user-agent")).contains(FeatureStoreS3ClientFactory.USER_AGENT));
    // B2 deletes one object per request; the others in one DeleteObjects
    assertThat(gate.seen().stream().anyMatch(seen -> seen.target().endsWith("?delete"))).isEqualTo(provider != StorageProvider.B2);
  }

  static Stream<Arguments> wrongRegions() {
    return Stream.of(
        Arguments.of(StorageProvider.B2, "eu-central-003", "AuthorizationHeaderMalformed",
            "The authorization header is malformed; the region 'eu-central-003' is wrong; expecting 'us-west-004'"),
        Arguments.of(StorageProvider.R2, "eu-west-1", "InvalidRegionName",
            "The region name 'eu-west-1' is not valid. Must be one of: wnam, enam, weur, eeur, apac, oc, auto"),
        Arguments.of(StorageProvider.MINIO, "eu-west-1", "AuthorizationHeaderMalformed",
            "The authorization header is malformed; the region is wrong; expecting 'us-east-1'."),
        Arguments.of(StorageProvider.S3, "us-east-2", "AuthorizationHeaderMalformed",
            "The authorization header is malformed; the region 'us-east-2' is wrong; expecting 'eu-west-1'"));
  }

  @ParameterizedTest
  @MethodSource("wrongRegions")
  void requestSignedForAnotherRegion_isRefusedAsTheProviderRefusesIt(StorageProvider provider, String region,
      String code, String message) {
    ObjectStorage elsewhere = s3.through(provider).toBuilder().region(region).build();
    try (S3Client client = ObjectStorageIO.newClient(elsewhere)) {
      assertThatThrownBy(() -> client.putObject(b -> b.bucket(BUCKET).key("region/" + provider), RequestBody.fromString("x")))
          .satisfies(e -> assertRefused(e, 400, code, message));
      // a HEAD answer has no body: the status only
      assertThatThrownBy(() -> client.headBucket(b -> b.bucket(BUCKET)))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    }
    assertThat(s3.gate(provider).refused(ProviderRules.REGION)).isEqualTo(2);
    assertThat(s3.keys("region/")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(StorageProvider.class)
  void multipartPartBelowTheProvidersMinimum_failsTheComplete(StorageProvider provider) {
    // B2's minimum part is 5,000,000 bytes, the others' 5 MiB (s3proxy behind the gates refuses parts
    // under 5 MiB itself, so B2's window from 5,000,000 bytes to 5 MiB is not testable here)
    int minimum = (int) (provider == StorageProvider.B2 ? ProviderRules.B2_MIN_PART : ProviderRules.MIB_5);
    String key = "parts/" + provider + ".bin";
    try (S3Client client = ObjectStorageIO.newClient(s3.through(provider))) {
      assertThatThrownBy(() -> multipart(client, key, minimum - 1, 1)).satisfies(e -> assertRefused(e, 400,
          "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size."));
      assertThat(s3.gate(provider).refused(ProviderRules.PART_TOO_SMALL)).isEqualTo(1);
      assertThat(s3.keys(key)).isEmpty();
      multipart(client, key, (int) ProviderRules.MIB_5, 1);
    }
    assertThat(s3.keys(key)).containsExactly(key);
  }

  // ---- B2

  @Test
  void b2_defaultSdkClient_putIsRefusedWithUnsupportedHeader() {
    try (S3Client plain = S3TestServer.client(s3.gate().endpoint())) {
      assertThatThrownBy(() -> plain.putObject(b -> b.bucket(BUCKET).key("gate/plain.txt"), RequestBody.fromString("hello")))
          .satisfies(e -> assertRefused(e, 400, "InvalidArgument",
              "Unsupported header 'x-amz-sdk-checksum-algorithm' received for this API call."));
    }
    assertThat(s3.gate().refused(ProviderRules.CHECKSUM_HEADER)).isPositive();
    assertThat(s3.keys("gate/")).isEmpty();
  }

  @Test
  void b2_conditionalPut_isNotImplemented() {
    try (S3Client b2 = ObjectStorageIO.newClient(s3.b2ThroughGate())) {
      assertThatThrownBy(() -> b2.putObject(b -> b.bucket(BUCKET).key("gate/cond.txt").ifNoneMatch("*"),
          RequestBody.fromString("x")))
          .satisfies(e -> assertRefused(e, 501, "NotImplemented",
              "A header you provided implies functionality that is not implemented"));
    }
    assertThat(s3.gate().refused(ProviderRules.CONDITIONAL_WRITE)).isEqualTo(1);
  }

  @Test
  void b2_deleteObjects_isRefusedEvenWhenChecksumsOnlyWhenRequired() {
    // Why the B2 FileIO deletes one object per request: DeleteObjects always carries a checksum.
    try (S3Client whenRequired = plainClient(StorageProvider.B2, b -> b
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED))) {
      assertThatThrownBy(() -> whenRequired.deleteObjects(b -> b.bucket(BUCKET)
          .delete(Delete.builder().objects(ObjectIdentifier.builder().key("gate/a").build()).build())))
          .satisfies(e -> assertRefused(e, 400, "InvalidArgument",
              "Unsupported header 'x-amz-checksum-crc32' received for this API call."));
    }
  }

  // ---- R2

  @Test
  void r2_defaultSdkChecksums_areNotImplemented() {
    try (S3Client plain = plainClient(StorageProvider.R2, b -> { })) {
      assertThatThrownBy(() -> plain.putObject(b -> b.bucket(BUCKET).key("r2/plain.txt"), RequestBody.fromString("x")))
          .satisfies(e -> assertRefused(e, 501, "NotImplemented",
              "Header 'x-amz-sdk-checksum-algorithm' with value 'CRC32' not implemented"));
    }
    assertThat(s3.gate(StorageProvider.R2).refused(ProviderRules.UNSUPPORTED_HEADER)).isEqualTo(1);
    assertThat(s3.keys("r2/")).isEmpty();
  }

  @Test
  void r2_usEast1AndLocationHints_areTheAutoRegion() {
    for (String region : List.of("us-east-1", "weur")) {
      try (S3Client client = ObjectStorageIO.newClient(s3.through(StorageProvider.R2).toBuilder().region(region).build())) {
        client.putObject(b -> b.bucket(BUCKET).key("r2-alias/" + region), RequestBody.fromString("x"));
      }
    }
    assertThat(s3.keys("r2-alias/")).hasSize(2);
    assertThat(s3.gate(StorageProvider.R2).refusals()).isEmpty();
  }

  @Test
  void r2_aclTaggingSseKmsObjectLockAndOtherStorageClasses_areRefused() {
    List<Consumer<PutObjectRequest.Builder>> refused = List.of(
        b -> b.acl(ObjectCannedACL.PUBLIC_READ),
        b -> b.tagging("team=a"),
        b -> b.serverSideEncryption(ServerSideEncryption.AWS_KMS),
        b -> b.objectLockMode(ObjectLockMode.GOVERNANCE).objectLockRetainUntilDate(Instant.parse("2030-01-01T00:00:00Z")));
    List<String> headers = new ArrayList<>();
    try (S3Client r2 = ObjectStorageIO.newClient(s3.through(StorageProvider.R2))) {
      for (Consumer<PutObjectRequest.Builder> change : refused) {
        assertThatThrownBy(() -> r2.putObject(b -> change.accept(b.bucket(BUCKET).key("r2/refused")), RequestBody.fromString("x")))
            .isInstanceOfSatisfying(S3Exception.class, e -> {
              assertThat(e.statusCode()).isEqualTo(501);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NotImplemented");
              headers.add(e.awsErrorDetails().errorMessage().replaceAll("^Header '([^']+)'.*", "$1"));
            });
      }
      assertThatThrownBy(() -> r2.putObject(b -> b.bucket(BUCKET).key("r2/refused").storageClass(StorageClass.GLACIER),
          RequestBody.fromString("x")))
          .satisfies(e -> assertRefused(e, 400, "InvalidStorageClass", "The storage class you specified is not valid"));
      r2.putObject(b -> b.bucket(BUCKET).key("r2/standard").storageClass(StorageClass.STANDARD), RequestBody.fromString("x"));
    }
    assertThat(headers).containsExactly("x-amz-acl", "x-amz-tagging", "x-amz-server-side-encryption", "x-amz-object-lock-mode");
    assertThat(s3.keys("r2/")).containsExactly("r2/standard");
    assertThat(s3.gate(StorageProvider.R2).refused(ProviderRules.STORAGE_CLASS)).isEqualTo(1);
  }

  @Test
  void r2_nonTrailingPartsOfUnequalSize_failTheComplete() {
    int mib5 = (int) ProviderRules.MIB_5;
    try (S3Client r2 = ObjectStorageIO.newClient(s3.through(StorageProvider.R2))) {
      for (int[] sizes : List.of(new int[] {mib5, mib5 + 1, 1}, new int[] {mib5, mib5 + 1})) {
        assertThatThrownBy(() -> multipart(r2, "r2-parts/unequal.bin", sizes))
            .satisfies(e -> assertRefused(e, 400, "InvalidPart", "All non-trailing parts must have the same length."));
      }
      assertThat(s3.keys("r2-parts/")).isEmpty();
      multipart(r2, "r2-parts/equal.bin", mib5, mib5, 7);
    }
    assertThat(s3.keys("r2-parts/")).containsExactly("r2-parts/equal.bin");
    assertThat(s3.gate(StorageProvider.R2).refused(ProviderRules.UNEQUAL_PARTS)).isEqualTo(2);
  }

  // ---- MinIO

  @Test
  void minio_deleteObjectsWithoutContentMd5_isMissingContentMd5() {
    try (S3Client plain = plainClient(StorageProvider.MINIO, b -> { })) {
      plain.putObject(b -> b.bucket(BUCKET).key("minio/a"), RequestBody.fromString("x"));
      assertThatThrownBy(() -> plain.deleteObjects(b -> b.bucket(BUCKET)
          .delete(Delete.builder().objects(ObjectIdentifier.builder().key("minio/a").build()).build())))
          .satisfies(e -> assertRefused(e, 400, "MissingContentMD5", "Missing required header for this request: Content-Md5."));
    }
    assertThat(s3.keys("minio/")).containsExactly("minio/a");
    assertThat(s3.gate(StorageProvider.MINIO).refused(ProviderRules.DELETE_WITHOUT_MD5)).isEqualTo(1);
  }

  @Test
  void minio_virtualHostAddressing_isNoSuchBucket() throws Exception {
    ProviderGate gate = s3.gate(StorageProvider.MINIO);
    String answer = raw(gate, "GET /raw/events.csv HTTP/1.1\r\nHost: " + BUCKET + ".localhost:" + gate.port() + "\r\n");
    assertThat(answer).startsWith("HTTP/1.1 404 ").contains("<Code>NoSuchBucket</Code>")
        .contains("<BucketName>raw</BucketName>");
    // the profile without path style addresses <bucket>.localhost: it never reaches the bucket
    ObjectStorage virtualHost = s3.through(StorageProvider.MINIO).toBuilder().pathStyle(false).build();
    try (S3Client client = ObjectStorageIO.newClient(virtualHost, java.util.Map.of(ObjectStorageIO.MAX_ATTEMPTS, "1"))) {
      assertThatThrownBy(() -> client.putObject(b -> b.bucket(BUCKET).key("minio-vh/a"), RequestBody.fromString("x")))
          .isInstanceOfAny(SdkClientException.class, S3Exception.class);
    }
    assertThat(s3.keys("minio-vh/")).isEmpty();
    assertThat(gate.refusals()).extracting(ProviderGate.Refusal::rule).containsOnly(ProviderRules.VIRTUAL_HOST);
  }

  // ---- Amazon S3

  @Test
  void s3_sdkAlgorithmWithoutItsChecksum_isInvalidRequest() throws Exception {
    ProviderGate gate = s3.gate(StorageProvider.S3);
    String answer = raw(gate, "PUT /" + BUCKET + "/s3/raw.txt HTTP/1.1\r\nHost: 127.0.0.1:" + gate.port()
        + "\r\nx-amz-sdk-checksum-algorithm: CRC32\r\n");
    assertThat(answer).startsWith("HTTP/1.1 400 ").contains("<Code>InvalidRequest</Code>")
        .contains("x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.");
    assertThat(gate.refused(ProviderRules.ALGORITHM_WITHOUT_CHECKSUM)).isEqualTo(1);
  }

  @Test
  void s3_deleteObjectsWithNeitherMd5NorChecksum_isInvalidRequest() throws Exception {
    ProviderGate gate = s3.gate(StorageProvider.S3);
    String answer = raw(gate, "POST /" + BUCKET + "?delete HTTP/1.1\r\nHost: 127.0.0.1:" + gate.port() + "\r\n");
    assertThat(answer).startsWith("HTTP/1.1 400 ").contains("<Code>InvalidRequest</Code>")
        .contains("Missing required header for this request: Content-MD5 OR x-amz-checksum-*");
    assertThat(gate.refused(ProviderRules.DELETE_WITHOUT_INTEGRITY)).isEqualTo(1);
  }

  @Test
  void s3_defaultSdkChecksumsAndConditionalWrites_areAccepted() {
    try (S3Client plain = plainClient(StorageProvider.S3, b -> { })) {
      plain.putObject(b -> b.bucket(BUCKET).key("s3/cond.txt").ifNoneMatch("*"), RequestBody.fromString("first"));
      // the second conditional write reaches the server, which answers 412
      assertThatThrownBy(() -> plain.putObject(b -> b.bucket(BUCKET).key("s3/cond.txt").ifNoneMatch("*"),
          RequestBody.fromString("second")))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
      assertThat(plain.getObjectAsBytes(b -> b.bucket(BUCKET).key("s3/cond.txt")).asUtf8String()).isEqualTo("first");
    }
    assertThat(s3.gate(StorageProvider.S3).refusals()).isEmpty();
  }

  // ---- helpers

  private static void assertRefused(Throwable e, int status, String code, String message) {
    assertThat(e).isInstanceOfSatisfying(S3Exception.class, s3e -> {
      assertThat(s3e.statusCode()).isEqualTo(status);
      assertThat(s3e.awsErrorDetails().errorCode()).isEqualTo(code);
      assertThat(s3e.awsErrorDetails().errorMessage()).isEqualTo(message);
    });
  }

  /** A client with the SDK's default checksum settings, signed for {@code provider}'s region, at its gate. */
  private static S3Client plainClient(StorageProvider provider, Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder> change) {
    software.amazon.awssdk.services.s3.S3ClientBuilder builder = S3Client.builder()
        .endpointOverride(java.net.URI.create(s3.gate(provider).endpoint()))
        .region(software.amazon.awssdk.regions.Region.of(S3TestServer.region(provider)))
        .forcePathStyle(true)
        .httpClientBuilder(software.amazon.awssdk.http.apache.ApacheHttpClient.builder())
        .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(S3TestServer.KEY_ID, S3TestServer.SECRET)));
    change.accept(builder);
    return builder.build();
  }

  /** A multipart upload of parts of {@code sizes} bytes; aborted if the complete fails. */
  private static void multipart(S3Client client, String key, int... sizes) {
    String uploadId = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    List<CompletedPart> parts = new ArrayList<>();
    try {
      for (int i = 0; i < sizes.length; i++) {
        int number = i + 1;
        String etag = client.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(number),
            RequestBody.fromBytes(new byte[sizes[i]])).eTag();
        parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
      }
      client.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
    } catch (RuntimeException e) {
      client.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
      throw e;
    }
  }

  /** Sends an unsigned request head (no body) to {@code gate} and returns its whole answer. */
  private static String raw(ProviderGate gate, String head) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), gate.port())) {
      OutputStream out = socket.getOutputStream();
      out.write((head + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.UTF_8);
    }
  }
}
