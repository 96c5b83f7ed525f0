package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import dev.featurestore.StorageProvider;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Wrong settings fail at open with a typed error that names the fix and no secret. */
class ObjectStorageBadInputTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  private static final String WRONG_SECRET = "wrong-secret-Kp4Xv9Qa2";

  private Throwable openFailure(ObjectStorage storage) {
    Throwable[] thrown = new Throwable[1];
    assertThatThrownBy(() -> {
      try {
        FeatureStore.builder().root(root).objectStorage(storage).build().close();
      } catch (Throwable t) {
        thrown[0] = t;
        throw t;
      }
    }).isInstanceOf(StorageException.class);
    for (Throwable t = thrown[0]; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain(storage.secretKey()).doesNotContain(WRONG_SECRET);
    }
    return thrown[0];
  }

  @Test
  void wrongSecret_failsNamingCredentials() {
    ObjectStorage storage = s3.b2ThroughGate().toBuilder().credentials(S3TestServer.KEY_ID, WRONG_SECRET).build();
    assertThat(openFailure(storage)).hasMessage("Cannot open object storage: credentials rejected (HTTP 403),"
        + " check the access key id and secret key (B2: B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY)"
        + " and that the key may use the bucket: bucket fs-test-bucket at " + s3.gate().endpoint());
  }

  @Test
  void missingBucket_failsNamingTheBucket() {
    ObjectStorage storage = s3.b2ThroughGate().toBuilder().bucket("no-such-bucket").build();
    assertThat(openFailure(storage)).hasMessage(
        "Cannot open object storage: bucket does not exist (HTTP 404 NoSuchBucket), create it or fix the bucket name: no-such-bucket");
  }

  @Test
  void wrongRegion_failsNamingTheRegionSettingAndTheBucketsRegion() {
    ObjectStorage storage = s3.b2ThroughGate().toBuilder().region("us-east-005").build();
    assertThat(openFailure(storage)).hasMessage("Cannot open object storage: wrong region for the bucket"
        + " (HTTP 400 AuthorizationHeaderMalformed), set the region (B2: B2_REGION) to us-west-004 and use the"
        + " endpoint that matches it: bucket fs-test-bucket at " + s3.gate().endpoint());
    assertThat(s3.gate().refused(ProviderRules.REGION)).isPositive();
  }

  @ParameterizedTest
  @CsvSource({"R2, eu-west-1, InvalidRegionName, auto", "MINIO, eu-west-1, AuthorizationHeaderMalformed, us-east-1",
      "S3, us-east-2, AuthorizationHeaderMalformed, eu-west-1"})
  void wrongRegion_onEachProvider_failsNamingTheBucketsRegion(StorageProvider provider, String region, String code,
      String expected) {
    ObjectStorage storage = s3.through(provider).toBuilder().region(region).build();
    assertThat(openFailure(storage)).hasMessage("Cannot open object storage: wrong region for the bucket"
        + " (HTTP 400 " + code + "), set the region (B2: B2_REGION) to " + expected + " and use the"
        + " endpoint that matches it: bucket fs-test-bucket at " + storage.endpoint().orElseThrow());
    assertThat(s3.gate(provider).refused(ProviderRules.REGION)).isPositive();
  }

  @Test
  void unreachableEndpoint_failsNamingTheEndpoint() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String endpoint = "http://127.0.0.1:" + closedPort;
    ObjectStorage storage = ObjectStorage.builder(StorageProvider.B2).endpoint(endpoint).region(S3TestServer.REGION)
        .bucket(S3TestServer.BUCKET).credentials(S3TestServer.KEY_ID, S3TestServer.SECRET).build();
    long start = System.nanoTime();
    assertThat(openFailure(storage)).hasMessage(
        "Cannot open object storage: endpoint unreachable, check the endpoint and the network: " + endpoint);
    assertThat(System.nanoTime() - start).isLessThan(30_000_000_000L);
  }

  @Test
  void openStore_toStringAndConfig_hideCredentials() {
    ObjectStorage storage = s3.b2ThroughGate();
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(storage).build()) {
      assertThat(store.toString()).doesNotContain(S3TestServer.SECRET).doesNotContain(S3TestServer.KEY_ID);
      assertThat(store.config().toString()).contains("bucket=fs-test-bucket");
      assertThat(store.config().warehouseLocation()).contains("s3://fs-test-bucket/warehouse");
    }
  }

  @Test
  void hostileKeys_areRefusedTyped() {
    assertThatThrownBy(() -> ObjectStorage.checkKey("../x")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot use object key: parent segment: ../x");
    assertThatThrownBy(() -> ObjectStorage.checkKey("/abs")).hasMessage("Cannot use object key: leading slash: /abs");
    assertThatThrownBy(() -> ObjectStorage.checkKey("")).hasMessage("Cannot use object key: empty key: ");
    assertThatThrownBy(() -> ObjectStorage.checkKey("a/../../b")).hasMessage("Cannot use object key: parent segment: a/../../b");
    assertThatThrownBy(() -> ObjectStorage.checkKey("a/./b")).hasMessage("Cannot use object key: relative segment: a/./b");
    assertThatThrownBy(() -> ObjectStorage.checkKey("a//b")).hasMessage("Cannot use object key: empty segment: a//b");
    assertThatThrownBy(() -> ObjectStorage.checkKey("a\nb")).hasMessage("Cannot use object key: control character: a\\u000ab");
    assertThatThrownBy(() -> ObjectStorage.checkKey("a\\b")).hasMessage("Cannot use object key: backslash: a\\b");
    assertThatThrownBy(() -> ObjectStorage.checkObjectName("folder/")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot use object name: ends with /, names a folder: folder/");
    ObjectStorage team = s3.b2ThroughGate().toBuilder().keyPrefix("team").build();
    assertThatThrownBy(() -> team.key("../other/x")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot use object key: parent segment: ../other/x");
    assertThat(team.key("raw/file.csv")).isEqualTo("team/raw/file.csv");
    assertThat(ObjectStorage.checkKey("warehouse/a/b/")).isEqualTo("warehouse/a/b/");
  }
}
