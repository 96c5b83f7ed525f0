package dev.featurestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectStorageTest {
  private static final String KEY_ID = "0041a2b3c4d5e6f0000000001";
  private static final String KEY = "K004SecretValueThatMustNeverLeak";

  private static Map<String, String> env(String... kv) {
    Map<String, String> env = new java.util.HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return env;
  }

  @Test
  void fromEnvironment_readsB2VariablesAndDerivesRegionFromEndpoint() {
    ObjectStorage s = ObjectStorage.fromEnvironment(env(
        "B2_BUCKET_NAME", "my-features", "B2_ENDPOINT", "https://s3.us-west-004.backblazeb2.com",
        "B2_APPLICATION_KEY_ID", KEY_ID, "B2_APPLICATION_KEY", KEY));
    assertThat(s.provider()).isEqualTo(StorageProvider.B2);
    assertThat(s.region()).isEqualTo("us-west-004");
    assertThat(s.endpoint()).contains("https://s3.us-west-004.backblazeb2.com");
    assertThat(s.pathStyle()).isTrue();
    assertThat(s.warehouseLocation()).isEqualTo("s3://my-features/warehouse");
  }

  @Test
  void fromEnvironment_withNothingSet_namesEveryVariable() {
    assertThatThrownBy(() -> ObjectStorage.fromEnvironment(Map.of()))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot configure object storage from the environment: 4 problems: "
            + "B2_BUCKET_NAME is missing: set it to the name of your B2 bucket; "
            + "B2_APPLICATION_KEY_ID is missing: set it to the keyID of a B2 application key; "
            + "B2_APPLICATION_KEY is missing: set it to the applicationKey shown once when the key was created; "
            + "B2_ENDPOINT is missing: set it to the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com (or set B2_REGION)");
  }

  @Test
  void fromEnvironment_withPlaceholders_namesEachWithoutEchoingSecrets() {
    assertThatThrownBy(() -> ObjectStorage.fromEnvironment(env(
        "B2_BUCKET_NAME", "<bucket>", "B2_ENDPOINT", "changeme", "B2_REGION", "xxx",
        "B2_APPLICATION_KEY_ID", "your-key-id", "B2_APPLICATION_KEY", "your-application-key")))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot configure object storage from the environment: 5 problems: "
            + "B2_BUCKET_NAME holds a placeholder (<bucket>): set it to the name of your B2 bucket; "
            + "B2_ENDPOINT holds a placeholder (changeme): set it to the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com; "
            + "B2_REGION holds a placeholder (xxx): set it to the bucket's region, e.g. us-west-004; "
            + "B2_APPLICATION_KEY_ID holds a placeholder: set it to the keyID of a B2 application key; "
            + "B2_APPLICATION_KEY holds a placeholder: set it to the applicationKey shown once when the key was created");
  }

  @Test
  void fromEnvironment_withRegionNotMatchingEndpoint_saysWhichToUse() {
    assertThatThrownBy(() -> ObjectStorage.fromEnvironment(env(
        "B2_BUCKET_NAME", "my-features", "B2_ENDPOINT", "https://s3.us-west-004.backblazeb2.com", "B2_REGION", "eu-central-003",
        "B2_APPLICATION_KEY_ID", KEY_ID, "B2_APPLICATION_KEY", KEY)))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot configure object storage from the environment: 1 problem: "
            + "B2_REGION (eu-central-003) does not match B2_ENDPOINT (https://s3.us-west-004.backblazeb2.com): "
            + "set B2_REGION to us-west-004 or remove it");
  }

  @Test
  void fromEnvironment_withRegionSet_takesAnyEndpointAsGiven() {
    for (String endpoint : List.of("https://b2-proxy.internal:8443", "https://files.example.com", "http://127.0.0.1:9000")) {
      ObjectStorage s = ObjectStorage.fromEnvironment(env(
          "B2_BUCKET_NAME", "my-features", "B2_ENDPOINT", endpoint, "B2_REGION", "us-west-004",
          "B2_APPLICATION_KEY_ID", KEY_ID, "B2_APPLICATION_KEY", KEY));
      assertThat(s.endpoint()).contains(endpoint);
      assertThat(s.region()).isEqualTo("us-west-004");
      assertThat(s.provider()).isEqualTo(StorageProvider.B2);
      assertThat(s.pathStyle()).isTrue();
    }
  }

  @Test
  void fromEnvironment_withOtherEndpointAndNoRegion_saysToSetTheRegion() {
    assertThatThrownBy(() -> ObjectStorage.fromEnvironment(env(
        "B2_BUCKET_NAME", "my-features", "B2_ENDPOINT", "https://b2-proxy.internal:8443",
        "B2_APPLICATION_KEY_ID", KEY_ID, "B2_APPLICATION_KEY", KEY)))
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot configure object storage from the environment: 1 problem: "
            + "B2_ENDPOINT is not a B2 endpoint and names no region (https://b2-proxy.internal:8443): "
            + "set it to https://s3.<region>.backblazeb2.com as shown on the bucket's page, or set B2_REGION to use "
            + "this endpoint as given");
  }

  @Test
  void b2_fromRegion_buildsEndpoint_andMismatchIsRefused() {
    ObjectStorage s = ObjectStorage.b2("my-features", "eu-central-003", KEY_ID, KEY);
    assertThat(s.endpoint()).contains("https://s3.eu-central-003.backblazeb2.com");
    assertThatThrownBy(() -> s.toBuilder().region("us-west-004").build())
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot configure object storage: region us-west-004 does not match the endpoint, use eu-central-003: "
            + "https://s3.eu-central-003.backblazeb2.com");
  }

  @Test
  void providerProfiles_fillTheirDefaults() {
    assertThat(ObjectStorage.r2("abc123", "bkt", KEY_ID, KEY).region()).isEqualTo("auto");
    assertThat(ObjectStorage.r2("abc123", "bkt", KEY_ID, KEY).endpoint()).contains("https://abc123.r2.cloudflarestorage.com");
    assertThat(ObjectStorage.minio("http://localhost:9000", "bkt", KEY_ID, KEY).pathStyle()).isTrue();
    assertThat(ObjectStorage.s3("bkt", "eu-west-1", KEY_ID, KEY).endpoint()).isEmpty();
    assertThat(ObjectStorage.s3("bkt", "eu-west-1", KEY_ID, KEY).pathStyle()).isFalse();
  }

  @Test
  void credentials_neverAppearInToString() {
    ObjectStorage s = ObjectStorage.b2("my-features", "us-west-004", KEY_ID, KEY).toBuilder().keyPrefix("team-a").build();
    FeatureStoreConfig config = FeatureStore.builder().root(Path.of("store")).objectStorage(s).config();
    for (String text : new String[] {s.toString(), config.toString()}) {
      assertThat(text).doesNotContain(KEY).doesNotContain(KEY_ID).contains("my-features");
    }
    assertThat(config.warehouseLocation()).contains("s3://my-features/team-a/warehouse");
    assertThat(config.catalogFile()).contains(Path.of("store").resolve("catalog.db"));
    assertThat(config.toBuilder().config().objectStorage()).contains(s);
  }

  @Test
  void objectStorage_needsALocalCatalog() {
    ObjectStorage s = ObjectStorage.b2("my-features", "us-west-004", KEY_ID, KEY);
    assertThatThrownBy(() -> FeatureStore.builder().objectStorage(s).config())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot configure feature store: object storage keeps the catalog local: set root(dir) or catalogFile(path)");
    assertThat(FeatureStore.builder().catalogFile(Path.of("c.db")).objectStorage(s).config().warehouseLocation())
        .contains("s3://my-features/warehouse");
    assertThatThrownBy(() -> FeatureStore.builder().root(Path.of("x")).objectStorage(s)
        .warehouseLocation("s3://other-bucket/warehouse").config())
        .hasMessage("Cannot configure feature store: warehouse location is outside the object storage bucket: s3://other-bucket/warehouse");
  }

  @Test
  void hostilePrefix_isRefused() {
    ObjectStorage.Builder b = ObjectStorage.builder(StorageProvider.B2);
    assertThatThrownBy(() -> b.keyPrefix("../up")).hasMessage("Cannot use object key: parent segment: ../up");
    assertThatThrownBy(() -> b.keyPrefix("/abs")).hasMessage("Cannot use object key: leading slash: /abs");
  }
}
