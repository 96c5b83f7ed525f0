package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every error path of every catalog kind, with a canary secret in the settings: the secret appears
 * in no message, no {@code toString()} and no stack trace of the exception, its causes and their
 * suppressed exceptions, at any depth.
 */
class CatalogSecretsTest {
  private static final String CANARY = "canary-Secret-7f3Qx9";
  private static final String CANARY_2 = "canary-Other-4kW2p8";

  @RegisterExtension static S3TestServer s3 = new S3TestServer();

  @TempDir Path dir;

  // ---- PostgreSQL (JDBC) ----

  @Test
  void jdbc_passwordInUrl_unreachableServer_secretNowhere() throws IOException {
    String url = "jdbc:postgresql://127.0.0.1:" + unusedPort() + "/features?user=fs&password=" + CANARY
        + "&connectTimeout=2";
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().jdbcCatalog(url, "fs", CANARY_2)
        .warehouseLocation(dir.resolve("warehouse").toString()).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class).hasMessageStartingWith("Cannot open JDBC catalog: ");
    assertNoSecret(thrown);
  }

  @Test
  void jdbc_passwordInUserInfo_unreachableServer_secretNowhere() throws IOException {
    String url = "jdbc:postgresql://fs:" + CANARY + "@127.0.0.1:" + unusedPort() + "/features";
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().jdbcCatalog(url, "fs", CANARY_2)
        .warehouseLocation(dir.resolve("warehouse").toString()).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class);
    assertNoSecret(thrown);
  }

  @Test
  void jdbc_wrongPasswordInUrl_realServer_secretNowhere() {
    String url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    String user = System.getenv("FEATURESTORE_TEST_POSTGRES_USER");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
    String withPassword = url + (url.contains("?") ? "&" : "?") + "password=" + CANARY;
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().jdbcCatalog(withPassword, user, CANARY_2)
        .warehouseLocation(dir.resolve("warehouse").toString()).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class);
    assertNoSecret(thrown);
  }

  // ---- REST ----

  @Test
  void rest_unreachableServer_withToken_secretNowhere() throws IOException {
    String uri = "http://127.0.0.1:" + unusedPort() + "/catalog";
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().restCatalog(uri)
        .catalogProperty("token", CANARY).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class).hasMessageStartingWith("Cannot open REST catalog: ");
    assertNoSecret(thrown);
  }

  @Test
  void rest_unreachableServer_withCredentialAndUserInfo_secretNowhere() throws IOException {
    String uri = "http://fs:" + CANARY_2 + "@127.0.0.1:" + unusedPort() + "/catalog?token=" + CANARY_2;
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().restCatalog(uri)
        .catalogProperty("credential", "client-id:" + CANARY).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class);
    assertNoSecret(thrown);
  }

  @Test
  void rest_wrongToken_secretNowhere() throws Exception {
    try (RestCatalogServer server = RestCatalogServer.start(dir, "the-right-token-1")) {
      Throwable thrown = catchThrowable(() -> FeatureStore.builder().restCatalog(server.uri())
          .catalogProperty("token", CANARY).build());
      assertThat(thrown).isInstanceOf(FeatureStoreException.class).hasMessageContaining("Not authorized");
      assertNoSecret(thrown);
    }
  }

  @Test
  void rest_credentialRefusedByServer_secretNowhere() throws Exception {
    try (RestCatalogServer server = RestCatalogServer.start(dir, "the-right-token-1")) {
      Throwable thrown = catchThrowable(() -> FeatureStore.builder().restCatalog(server.uri())
          .catalogProperty("credential", "client-id:" + CANARY).build());
      assertThat(thrown).isInstanceOf(FeatureStoreException.class);
      assertNoSecret(thrown);
    }
  }

  @Test
  void rest_serverGoneAfterOpen_everyCallFails_secretNowhere() throws Exception {
    RestCatalogServer server = RestCatalogServer.start(dir, CANARY);
    try (FeatureStore store = FeatureStore.builder().restCatalog(server.uri()).catalogProperty("token", CANARY).build()) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      server.close();
      assertEveryCallFailsWithoutSecret(store);
    }
  }

  // ---- SQLite (embedded), with the bucket's secret key as the canary ----

  @Test
  void sqlite_catalogFileIsADirectory_secretNowhere() throws IOException {
    Files.createDirectories(dir.resolve("catalog.db"));
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().root(dir)
        .catalogProperty("jdbc.password", CANARY).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class);
    assertNoSecret(thrown);
  }

  @Test
  void sqlite_bucketRefusesTheKey_secretNowhere() {
    ObjectStorage wrongKey = ObjectStorage.builder(StorageProvider.B2).bucket(S3TestServer.BUCKET)
        .endpoint(s3.gate().endpoint()).region(S3TestServer.REGION).credentials(S3TestServer.KEY_ID, CANARY).build();
    Throwable thrown = catchThrowable(() -> FeatureStore.builder().root(dir).objectStorage(wrongKey).build());
    assertThat(thrown).isInstanceOf(FeatureStoreException.class);
    assertNoSecret(thrown);
  }

  @Test
  void sqlite_catalogFileCorruptAfterOpen_everyCallFails_secretNowhere() throws IOException {
    try (FeatureStore store = FeatureStore.builder().root(dir).catalogProperty("jdbc.password", CANARY).build()) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      for (String name : List.of("catalog.db", "catalog.db-wal", "catalog.db-shm")) {
        Path file = dir.resolve(name);
        if (Files.exists(file)) {
          Files.write(file, ("not a database password=" + CANARY).repeat(200).getBytes());
        }
      }
      assertEveryCallFailsWithoutSecret(store);
    }
  }

  /** Each catalog call of the store: if it fails, its exception holds no canary. */
  private static void assertEveryCallFailsWithoutSecret(FeatureStore store) {
    List<Consumer<FeatureStore>> calls = List.of(
        s -> s.table(SyntheticFeatures.TABLE_ID),
        s -> s.findTable(TableId.of("features", "missing")),
        s -> s.tableExists(SyntheticFeatures.TABLE_ID),
        s -> s.namespaces(),
        s -> s.listTables(),
        s -> s.listTables("features"),
        s -> s.createTable(TableDefinition.builder("other.t", SyntheticFeatures.schema()).build()),
        s -> s.dropTable(SyntheticFeatures.TABLE_ID, false),
        s -> s.recoverCatalog());
    int failed = 0;
    for (Consumer<FeatureStore> call : calls) {
      Throwable thrown = catchThrowable(() -> call.accept(store));
      if (thrown != null) {
        failed++;
        assertThat(thrown).isInstanceOf(FeatureStoreException.class);
        assertNoSecret(thrown);
      }
    }
    assertThat(failed).as("calls that failed").isGreaterThan(0);
  }

  /** Walks the cause chain and suppressed exceptions: no message, toString or stack trace names a canary. */
  static void assertNoSecret(Throwable thrown) {
    StringWriter trace = new StringWriter();
    thrown.printStackTrace(new PrintWriter(trace));
    assertThat(trace.toString()).doesNotContain(CANARY).doesNotContain(CANARY_2);
    List<Throwable> all = new ArrayList<>();
    collect(thrown, all, Collections.newSetFromMap(new IdentityHashMap<>()));
    for (Throwable t : all) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain(CANARY).doesNotContain(CANARY_2);
      assertThat(String.valueOf(t.getLocalizedMessage())).doesNotContain(CANARY).doesNotContain(CANARY_2);
      assertThat(t.toString()).doesNotContain(CANARY).doesNotContain(CANARY_2);
    }
  }

  private static void collect(Throwable t, List<Throwable> all, Set<Throwable> seen) {
    if (t == null || !seen.add(t)) {
      return;
    }
    all.add(t);
    for (Throwable s : t.getSuppressed()) {
      collect(s, all, seen);
    }
    collect(t.getCause(), all, seen);
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
