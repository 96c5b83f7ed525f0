package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.DoctorReport;
import dev.featurestore.DoctorReport.Check;
import dev.featurestore.DoctorReport.Status;
import dev.featurestore.FeatureStore;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The doctor through the B2 gate: each problem is a failed check naming the fix; nothing is left behind. */
class DoctorTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  private static final String WRONG_SECRET = "wrong-secret-Kp4Xv9Qa2";

  private DoctorReport doctor(ObjectStorage storage) {
    DoctorReport report = FeatureStore.doctor(FeatureStore.builder().root(root).objectStorage(storage).config());
    assertThat(report.toString()).doesNotContain(S3TestServer.SECRET).doesNotContain(WRONG_SECRET)
        .doesNotContain(S3TestServer.KEY_ID);
    assertThat(s3.keys(".featurestore-doctor/")).isEmpty();
    return report;
  }

  private static List<String> names(DoctorReport report) {
    return report.checks().stream().map(Check::name).toList();
  }

  @Test
  void doctor_allGood_passesEveryCheckAndLeavesNoProbe() {
    DoctorReport report = doctor(s3.b2ThroughGate());
    assertThat(report.ok()).as(report.toString()).isTrue();
    assertThat(names(report)).containsExactly("endpoint https", "setting bucket", "setting endpoint", "setting region",
        "setting access key id", "setting secret key", "setting key prefix", "endpoint reachable", "credentials",
        "bucket", "bucket write", "bucket read", "bucket list", "bucket delete", "catalog");
    // the gate is plain http on loopback and not a B2 host name: the endpoint is the only warning
    assertThat(report.checks()).filteredOn(c -> c.status() != Status.OK).extracting(Check::name)
        .containsExactly("endpoint https", "setting endpoint");
    assertThat(report.check("setting secret key").get().detail()).isEqualTo("set (not shown)");
    assertThat(s3.gate().refusals()).isEmpty();
  }

  @Test
  void doctor_plainHttpEndpoint_warnsNamingTheSetting() {
    DoctorReport report = doctor(s3.b2ThroughGate());
    assertThat(report.check("endpoint https")).contains(Check.warn("endpoint https",
        "Object storage endpoint is plain http: requests signed with the bucket's credentials and all data travel"
            + " unencrypted: " + s3.gate().endpoint(),
        "set B2_ENDPOINT (or ObjectStorage.Builder.endpoint(...)) to an https:// URI; plain http only for a local stand-in"));
    assertThat(report.ok()).isTrue(); // a warning, not a failure
  }

  @Test
  void doctorFromEnvironment_regionSet_takesAnyEndpointAsGiven_andPasses() {
    Map<String, String> env = Map.of("B2_BUCKET_NAME", S3TestServer.BUCKET, "B2_ENDPOINT", s3.gate().endpoint(),
        "B2_REGION", S3TestServer.REGION, "B2_APPLICATION_KEY_ID", S3TestServer.KEY_ID, "B2_APPLICATION_KEY", S3TestServer.SECRET);
    DoctorReport report = FeatureStore.doctorFromEnvironment(root, env);
    assertThat(report.ok()).as(report.toString()).isTrue();
    assertThat(report.check("bucket delete").get().status()).isEqualTo(Status.OK);
    assertThat(report.check("setting endpoint").get().status()).isEqualTo(Status.WARN);
    assertThat(report.check("endpoint https").get().status()).isEqualTo(Status.WARN);
  }

  @Test
  void doctor_probeDeleteFailingTransiently_isRetried_andNoProbeStays() {
    java.util.concurrent.atomic.AtomicInteger deletes = new java.util.concurrent.atomic.AtomicInteger();
    // the doctor's client makes 2 attempts per call: the first two calls fail, the third lands
    s3.gate().failHard(seen -> seen.method().equals("DELETE") && seen.target().contains(".featurestore-doctor")
        && deletes.incrementAndGet() <= 4);
    DoctorReport report = doctor(s3.b2ThroughGate());
    assertThat(report.ok()).as(report.toString()).isTrue();
    Check delete = report.check("bucket delete").orElseThrow();
    assertThat(delete.status()).isEqualTo(Status.WARN);
    assertThat(delete.detail()).matches("deleted \\.featurestore-doctor/[0-9a-f-]{36} at try 3 of 3 \\(transient storage failures\\)");
    assertThat(s3.keys(".featurestore-doctor/")).isEmpty();
  }

  @Test
  void doctor_probeDeleteFailingForGood_failsNamingTheKeyThatStays() {
    s3.gate().failHard(seen -> seen.method().equals("DELETE") && seen.target().contains(".featurestore-doctor"));
    DoctorReport report = FeatureStore.doctor(FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).config());
    List<String> left = s3.keys(".featurestore-doctor/");
    try {
      Check delete = report.check("bucket delete").orElseThrow();
      assertThat(delete.status()).isEqualTo(Status.FAIL);
      assertThat(left).hasSize(1);
      assertThat(delete.detail()).endsWith(": 3 tries: the probe object stays: " + left.get(0));
      assertThat(delete.fix()).contains("delete " + left.get(0) + " by hand");
      assertThat(report.check("probe cleanup")).isEmpty(); // said once, in the delete check
    } finally {
      s3.gate().reset();
      left.forEach(key -> s3.direct().deleteObject(b -> b.bucket(S3TestServer.BUCKET).key(key)));
    }
  }

  @Test
  void doctor_onOpenStore_runsTheSameChecks() {
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      assertThat(store.doctor().ok()).isTrue();
    }
  }

  @Test
  void doctor_wrongSecret_failsCredentialsNamingTheVariables() {
    DoctorReport report = doctor(s3.b2ThroughGate().toBuilder().credentials(S3TestServer.KEY_ID, WRONG_SECRET).build());
    assertThat(report.failures()).containsExactly(Check.fail("credentials", "rejected (HTTP 403)",
        "check the access key id and secret key (B2: B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY),"
            + " and that the key is allowed to use bucket fs-test-bucket"));
    assertThat(names(report)).doesNotContain("bucket write", "catalog");
  }

  @Test
  void doctor_missingBucket_failsBucket() {
    DoctorReport report = doctor(s3.b2ThroughGate().toBuilder().bucket("no-such-bucket").build());
    assertThat(report.check("credentials").get().status()).isEqualTo(Status.OK);
    assertThat(report.failures()).containsExactly(Check.fail("bucket", "does not exist: no-such-bucket",
        "create the bucket, or fix the bucket name (B2: B2_BUCKET_NAME, the name, not the id)"));
  }

  @Test
  void doctor_wrongRegion_failsRegionNamingTheBucketsRegion() {
    // the gate is no B2 host name, so the builder cannot see the mismatch; the store refuses the signature
    DoctorReport report = doctor(s3.b2ThroughGate().toBuilder().region("us-east-005").build());
    assertThat(report.failures()).containsExactly(Check.fail("region",
        "the store refused requests signed for region us-east-005 (HTTP 400 AuthorizationHeaderMalformed):"
            + " the bucket is in us-west-004",
        "set the region (B2: B2_REGION) to us-west-004 and use the endpoint that matches it"));
    assertThat(names(report)).doesNotContain("credentials", "bucket write", "catalog");
    assertThat(s3.gate().refused(ProviderRules.REGION)).isPositive();
  }

  @Test
  void doctor_closedPort_failsEndpointQuickly() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    ObjectStorage storage = ObjectStorage.builder(StorageProvider.B2).endpoint("http://127.0.0.1:" + closedPort)
        .region(S3TestServer.REGION).bucket(S3TestServer.BUCKET).credentials(S3TestServer.KEY_ID, S3TestServer.SECRET).build();
    long start = System.nanoTime();
    DoctorReport report = doctor(storage);
    assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
    assertThat(report.failures()).containsExactly(Check.fail("endpoint reachable", "nothing answers at 127.0.0.1:" + closedPort,
        "check the endpoint (B2: B2_ENDPOINT, e.g. https://s3.us-west-004.backblazeb2.com) and the network"));
    assertThat(names(report)).doesNotContain("credentials");
  }

  @Test
  void doctor_placeholderSettings_namesEachOneAndMakesNoRequest() {
    ObjectStorage storage = s3.b2ThroughGate().toBuilder().credentials("your-key-id", "changeme").build();
    DoctorReport report = doctor(storage);
    assertThat(report.failures()).containsExactly(
        Check.fail("setting access key id", "holds a placeholder",
            "set the access key id (B2: B2_APPLICATION_KEY_ID, the key's keyID)"),
        Check.fail("setting secret key", "holds a placeholder",
            "set the secret key (B2: B2_APPLICATION_KEY, the applicationKey shown once)"));
    assertThat(s3.gate().seen()).isEmpty();
  }

  @Test
  void doctorFromEnvironment_missingAndPlaceholderVariables_areNamed() {
    Map<String, String> env = new HashMap<>();
    env.put("B2_BUCKET_NAME", "<bucket-name>");
    env.put("B2_APPLICATION_KEY_ID", "your-key-id");
    DoctorReport report = FeatureStore.doctorFromEnvironment(root, env);
    assertThat(report.failures()).containsExactly(
        Check.fail("setting B2_BUCKET_NAME", "holds a placeholder: <bucket-name>",
            "set B2_BUCKET_NAME to the name of your B2 bucket (not its id or URL)"),
        Check.fail("setting B2_ENDPOINT", "missing",
            "set B2_ENDPOINT to the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com (shown on the bucket's page)"),
        Check.fail("setting B2_APPLICATION_KEY_ID", "holds a placeholder", "set B2_APPLICATION_KEY_ID to the keyID of a B2 application key"),
        Check.fail("setting B2_APPLICATION_KEY", "missing",
            "set B2_APPLICATION_KEY to the applicationKey shown once when the key was created"));
  }

  @Test
  void doctorFromEnvironment_goodVariables_reachTheBucketChecks() {
    Map<String, String> env = Map.of("B2_BUCKET_NAME", S3TestServer.BUCKET, "B2_ENDPOINT", "https://s3.us-west-004.backblazeb2.com",
        "B2_REGION", "us-east-005", "B2_APPLICATION_KEY_ID", S3TestServer.KEY_ID, "B2_APPLICATION_KEY", S3TestServer.SECRET);
    DoctorReport report = FeatureStore.doctorFromEnvironment(root, env);
    assertThat(report.toString()).doesNotContain(S3TestServer.SECRET).doesNotContain(S3TestServer.KEY_ID);
    assertThat(report.failures()).containsExactly(Check.fail("settings",
        "Cannot configure object storage from the environment: 1 problem: B2_REGION (us-east-005) does not match"
            + " B2_ENDPOINT (https://s3.us-west-004.backblazeb2.com): set B2_REGION to us-west-004 or remove it",
        "change the variables as the message says"));
  }

  @Test
  void doctor_localStore_checksDirectoryAndCatalog() {
    DoctorReport report = FeatureStore.doctor(FeatureStore.builder().root(root.resolve("local")).config());
    assertThat(report.ok()).isTrue();
    assertThat(names(report)).containsExactly("directory writable", "catalog");
  }

  @Test
  void doctor_localStoreInUnwritableDirectory_failsNamingIt() throws Exception {
    Path file = java.nio.file.Files.writeString(root.resolve("a-file"), "x");
    DoctorReport report = FeatureStore.doctor(FeatureStore.builder().root(file.resolve("store")).config());
    assertThat(report.failures()).extracting(Check::name).containsExactly("directory writable");
    assertThat(report.failures().get(0).fix()).isEqualTo("choose a writable directory for root(...) or fix its permissions");
  }
}
