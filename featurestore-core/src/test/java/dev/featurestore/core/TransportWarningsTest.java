package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TransportWarningsTest {
  private static final Path ROOT = Path.of("unused-root");

  private static ObjectStorage b2(String endpoint) {
    return ObjectStorage.builder(StorageProvider.B2).bucket("my-features").endpoint(endpoint).region("us-west-004")
        .credentials("key-id", "key-secret").build();
  }

  @Test
  void httpsB2Endpoint_noWarning() {
    FeatureStoreConfig config = FeatureStore.builder().root(ROOT)
        .objectStorage(ObjectStorage.b2("my-features", "us-west-004", "key-id", "key-secret")).config();
    assertThat(TransportWarnings.of(config)).isEmpty();
  }

  @Test
  void plainHttpB2_warnsForEncryptionAndLookalike_namingTheSetting() {
    FeatureStoreConfig config = FeatureStore.builder().root(ROOT).objectStorage(b2("http://b2-proxy.internal:8080")).config();
    assertThat(TransportWarnings.of(config)).extracting(TransportWarnings.Warning::check)
        .containsExactly("endpoint https", "endpoint is B2");
    assertThat(TransportWarnings.of(config).get(0).logLine())
        .isEqualTo("Object storage endpoint is plain http: requests signed with the bucket's credentials and all data"
            + " travel unencrypted: http://b2-proxy.internal:8080: set B2_ENDPOINT (or ObjectStorage.Builder.endpoint(...))"
            + " to an https:// URI; plain http only for a local stand-in");
    assertThat(TransportWarnings.of(config).get(1).logLine()).contains("used as given with region us-west-004");
  }

  @Test
  void plainHttpMinioColdTier_warnsNamingTheBuilderSetting() {
    FeatureStoreConfig config = FeatureStore.builder().root(ROOT)
        .coldStorage(ObjectStorage.minio("http://minio.local:9000", "cold-features", "key-id", "key-secret")).config();
    assertThat(TransportWarnings.of(config)).singleElement().satisfies(w -> {
      assertThat(w.check()).isEqualTo("cold endpoint https");
      assertThat(w.fix()).startsWith("set ObjectStorage.Builder.endpoint(...) to an https:// URI");
    });
  }

  @Test
  void plainHttpRestCatalog_warnsOnlyWithACredential_withoutPrintingIt() {
    FeatureStoreConfig withToken = FeatureStore.builder().restCatalog("http://catalog.internal/api?x=1")
        .catalogProperty("token", "tok-123456").config();
    assertThat(TransportWarnings.of(withToken)).singleElement().satisfies(w -> {
      assertThat(w.check()).isEqualTo("catalog https");
      assertThat(w.logLine()).doesNotContain("tok-123456").contains("http://catalog.internal/api?...");
    });
    FeatureStoreConfig anonymous = FeatureStore.builder().restCatalog("http://catalog.internal/api").config();
    assertThat(TransportWarnings.of(anonymous)).isEmpty();
  }
}
