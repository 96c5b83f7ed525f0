package dev.featurestore;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RedactionTest {
  @Test
  void uri_dropsQueryAndUserInfo() {
    assertThat(Redaction.uri("jdbc:postgresql://db:5432/f?user=u&password=S")).isEqualTo("jdbc:postgresql://db:5432/f?...");
    assertThat(Redaction.uri("https://u:S@host/x")).isEqualTo("https://<redacted>@host/x");
    assertThat(Redaction.uri(null)).isNull();
  }

  @Test
  void text_redactsParametersUserInfoBearerAndKnownSecrets() {
    assertThat(Redaction.text("Failed to connect: jdbc:postgresql://db/f?user=u&password=S3cret&ssl=true"))
        .isEqualTo("Failed to connect: jdbc:postgresql://db/f?user=u&password=<redacted>&ssl=true");
    assertThat(Redaction.text("props {jdbc.password=abc, token=t0k, warehouse=w}"))
        .isEqualTo("props {jdbc.password=<redacted>, token=<redacted>, warehouse=w}");
    assertThat(Redaction.text("{\"access_token\": \"eyJ0\", \"scope\": \"x\"}"))
        .isEqualTo("{\"access_token\": \"<redacted>\", \"scope\": \"x\"}");
    assertThat(Redaction.text("Authorization: Bearer abc123def456")).isEqualTo("Authorization: Bearer <redacted>");
    assertThat(Redaction.text("Not authorized: missing or wrong bearer token")).isEqualTo("Not authorized: missing or wrong bearer token");
    assertThat(Redaction.text("host fs:pw@db unknown", List.of("fs:pw"))).isEqualTo("host <redacted>@db unknown");
  }

  @Test
  void throwable_withoutSecret_isKeptAsItIs() {
    RuntimeException clean = new RuntimeException("no secret", new IllegalStateException("inner"));
    assertThat(Redaction.throwable(clean)).isSameAs(clean);
  }

  @Test
  void throwable_withSecretDeepInTheChain_isCopiedPrintingAsTheOriginal() {
    RuntimeException root = new IllegalStateException("Failed to connect: jdbc:x://h/d?password=S3cret");
    RuntimeException top = new RuntimeException("outer", root);
    top.addSuppressed(new IllegalArgumentException("token=T0ken"));
    Throwable copy = Redaction.throwable(top);
    assertThat(copy).isNotSameAs(top).hasMessage("outer");
    assertThat(copy.toString()).isEqualTo("java.lang.RuntimeException: outer");
    assertThat(copy.getCause().toString())
        .isEqualTo("java.lang.IllegalStateException: Failed to connect: jdbc:x://h/d?password=<redacted>");
    assertThat(copy.getCause().getStackTrace()).isEqualTo(root.getStackTrace());
    assertThat(copy.getSuppressed()[0].getMessage()).isEqualTo("token=<redacted>");
  }

  @Test
  void featureStoreException_redactsItsMessageAndCause() {
    StorageException e = new StorageException("Cannot open: password=S3cret",
        new RuntimeException("Failed to connect: jdbc:x://h/d?password=S3cret"));
    assertThat(e.getMessage()).isEqualTo("Cannot open: password=<redacted>");
    assertThat(e.getCause().getMessage()).doesNotContain("S3cret");
  }

  @Test
  void secretsOf_config_namesPropertyValuesUriPasswordAndBucketKey() {
    FeatureStoreConfig config = FeatureStoreConfig.builder()
        .jdbcCatalog("jdbc:postgresql://fs:UriPw1@db/f?password=QueryPw2", "fs", "ArgPw3")
        .catalogProperty("credential", "client:ClientSecret4")
        .catalogProperty("warehouse", "not-a-secret")
        .root(java.nio.file.Path.of("x"))
        .config();
    Set<String> secrets = Redaction.secretsOf(config);
    assertThat(secrets).contains("ArgPw3", "client:ClientSecret4", "ClientSecret4", "QueryPw2", "UriPw1")
        .doesNotContain("not-a-secret", "fs");
  }
}
