package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ObjectStorage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The gate answers as B2 does, and the B2 profile gets through it. */
class B2GateTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();

  @Test
  void defaultSdkClient_putThroughGate_isRefusedWithUnsupportedHeader() {
    try (S3Client plain = S3TestServer.client(s3.gate().endpoint())) {
      assertThatThrownBy(() -> plain.putObject(b -> b.bucket(S3TestServer.BUCKET).key("gate/plain.txt"),
          RequestBody.fromString("hello")))
          .isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
            assertThat(e.awsErrorDetails().errorMessage()).startsWith("Unsupported header");
          });
    }
    assertThat(s3.gate().rejectedChecksum()).isPositive();
    assertThat(s3.keys("gate/")).isEmpty();
  }

  @Test
  void b2ProfileClient_putGetListDeleteThroughGate_succeeds() {
    try (S3Client b2 = ObjectStorageIO.newClient(s3.b2ThroughGate())) {
      b2.putObject(b -> b.bucket(S3TestServer.BUCKET).key("gate/b2.txt"), RequestBody.fromString("hello b2"));
      String read = b2.getObjectAsBytes(b -> b.bucket(S3TestServer.BUCKET).key("gate/b2.txt")).asUtf8String();
      assertThat(read).isEqualTo("hello b2");
      assertThat(b2.listObjectsV2(b -> b.bucket(S3TestServer.BUCKET).prefix("gate/")).contents()).hasSize(1);
      b2.deleteObject(b -> b.bucket(S3TestServer.BUCKET).key("gate/b2.txt"));
    }
    assertThat(s3.gate().rejectedChecksum()).isZero();
    assertThat(s3.keys("gate/")).isEmpty();
    assertThat(s3.gate().seen()).allSatisfy(seen ->
        assertThat(seen.headers().get("user-agent")).contains(FeatureStoreS3ClientFactory.USER_AGENT));
  }

  @Test
  void requestSignedForAnotherRegion_isRefusedAsMalformedAuthorization() {
    ObjectStorage elsewhere = s3.b2ThroughGate().toBuilder().region("eu-central-003").build();
    try (S3Client b2 = ObjectStorageIO.newClient(elsewhere)) {
      assertThatThrownBy(() -> b2.putObject(b -> b.bucket(S3TestServer.BUCKET).key("gate/region.txt"),
          RequestBody.fromString("x")))
          .isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AuthorizationHeaderMalformed");
            assertThat(e.awsErrorDetails().errorMessage())
                .isEqualTo("The authorization header is malformed; the region 'eu-central-003' is wrong; expecting 'us-west-004'");
          });
      // a HEAD answer has no body: the status only
      assertThatThrownBy(() -> b2.headBucket(b -> b.bucket(S3TestServer.BUCKET)))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    }
    assertThat(s3.gate().rejectedRegion()).isEqualTo(2);
    assertThat(s3.keys("gate/")).isEmpty();
  }

  @Test
  void conditionalPut_throughGate_isNotImplemented() {
    try (S3Client b2 = ObjectStorageIO.newClient(s3.b2ThroughGate())) {
      assertThatThrownBy(() -> b2.putObject(b -> b.bucket(S3TestServer.BUCKET).key("gate/cond.txt").ifNoneMatch("*"),
          RequestBody.fromString("x")))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(501));
    }
    assertThat(s3.gate().rejectedConditional()).isEqualTo(1);
  }

  @Test
  void deleteObjects_throughGate_isRefusedEvenWhenChecksumsOnlyWhenRequired() {
    // Why the B2 FileIO deletes one object per request: DeleteObjects always carries a checksum.
    try (S3Client whenRequired = S3Client.builder()
        .endpointOverride(java.net.URI.create(s3.gate().endpoint()))
        .region(software.amazon.awssdk.regions.Region.of(S3TestServer.REGION))
        .forcePathStyle(true)
        .httpClientBuilder(software.amazon.awssdk.http.apache.ApacheHttpClient.builder())
        .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(S3TestServer.KEY_ID, S3TestServer.SECRET)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build()) {
      assertThatThrownBy(() -> whenRequired.deleteObjects(b -> b.bucket(S3TestServer.BUCKET)
          .delete(Delete.builder().objects(ObjectIdentifier.builder().key("gate/a").build()).build())))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    }
  }

  @Test
  void b2FileIO_deleteFiles_deletesOneByOneThroughGate() throws Exception {
    try (FileIO io = ObjectStorageIO.open(s3.b2ThroughGate())) {
      List<String> paths = List.of("a", "b", "c", "d", "e").stream()
          .map(n -> "s3://" + S3TestServer.BUCKET + "/gate/bulk/" + n).toList();
      for (String path : paths) {
        OutputFile out = io.newOutputFile(path);
        try (PositionOutputStream stream = out.createOrOverwrite()) {
          stream.write(path.getBytes(StandardCharsets.UTF_8));
        }
      }
      assertThat(s3.keys("gate/bulk/")).hasSize(5);
      ((SupportsBulkOperations) io).deleteFiles(paths);
    }
    assertThat(s3.keys("gate/bulk/")).isEmpty();
    assertThat(s3.gate().rejectedChecksum()).isZero();
    assertThat(s3.gate().seen()).noneMatch(seen -> seen.target().contains("?delete"));
  }
}
