package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableId;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer per shard and table across pipelines, processes and hosts sharing the catalog. */
class CdcLeaseTest {
  @TempDir Path dir;

  private CdcPipeline.Builder pipeline(FeatureStore store, String wal) {
    return CdcPipeline.builder(store).changeLog(LOG).shardId("s").writeAheadLog(dir.resolve(wal))
        .flushInterval(Duration.ZERO);
  }

  @Test
  void secondPipelineOnTheShard_otherLogDirectory_refusedNamingShardAndHolder() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline first = pipeline(store, "wal-a").build()) {
        first.insert("users", "1", Map.of("v", 1));
        first.flush();
        assertThatThrownBy(() -> pipeline(store, "wal-b").build())
            .isInstanceOf(CdcLeaseException.class)
            .hasMessageStartingWith("Cannot open CDC pipeline: shard s of table cdc.events is held by another pipeline: ")
            .hasMessageContaining("/" + ProcessHandle.current().pid() + "/")
            .hasMessageEndingWith(": s");
        // another shard of the same table is free
        try (CdcPipeline other = CdcPipeline.builder(store).changeLog(LOG).shardId("t").writeAheadLog(dir.resolve("wal-b"))
            .build()) {
          assertThat(other.shardId()).isEqualTo("t");
        }
      }
      // released on close: the other directory may take the shard now
      try (CdcPipeline second = pipeline(store, "wal-b").build()) {
        assertThat(second.insert("users", "2", Map.of("v", 2))).isEqualTo(2);
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L);
    }
  }

  /**
   * The lease on a PostgreSQL catalog (stores on several hosts): two stores on one catalog, one
   * shard, two WAL directories; the second pipeline is refused until the first closes. Runs when
   * {@code FEATURESTORE_TEST_POSTGRES_URL}, {@code _USER} and {@code _PASSWORD} are set (.ci/run).
   */
  @Test
  void secondPipelineOnTheShard_postgresCatalog_refusedAcrossStores() {
    String url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
    String user = System.getenv("FEATURESTORE_TEST_POSTGRES_USER");
    String password = System.getenv("FEATURESTORE_TEST_POSTGRES_PASSWORD");
    TableId log = TableId.of("cdc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12), "events");
    String warehouse = dir.resolve("warehouse").toString();
    try (FeatureStore hostA = FeatureStore.builder().jdbcCatalog(url, user, password).warehouseLocation(warehouse).build();
        FeatureStore hostB = FeatureStore.builder().jdbcCatalog(url, user, password).warehouseLocation(warehouse).build()) {
      try (CdcPipeline first = CdcPipeline.builder(hostA).changeLog(log).shardId("s").writeAheadLog(dir.resolve("wal-a"))
          .flushInterval(Duration.ZERO).build()) {
        first.insert("users", "1", Map.of("v", 1));
        first.flush();
        assertThatThrownBy(() -> CdcPipeline.builder(hostB).changeLog(log).shardId("s").writeAheadLog(dir.resolve("wal-b"))
            .flushInterval(Duration.ZERO).build())
            .isInstanceOf(CdcLeaseException.class)
            .hasMessageStartingWith("Cannot open CDC pipeline: shard s of table " + log + " is held by another pipeline: ");
      }
      try (CdcPipeline second = CdcPipeline.builder(hostB).changeLog(log).shardId("s").writeAheadLog(dir.resolve("wal-b"))
          .flushInterval(Duration.ZERO).build()) {
        assertThat(second.insert("users", "2", Map.of("v", 2))).isEqualTo(2);
      }
      assertThat(CdcTestSupport.sequences(hostA, log)).containsExactlyInAnyOrder(1L, 2L);
    }
  }

  @Test
  void leaseTakenOver_commitFailsTyped_andIsNotMade() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = pipeline(store, "wal-a").commitRetries(2).retryBackoff(Duration.ZERO).build()) {
      cdc.insert("users", "1", Map.of("v", 1));
      cdc.flush();
      // another writer took the shard over (as after this one's lease expired during a pause)
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("store").resolve("catalog.db"));
          Statement s = c.createStatement()) {
        assertThat(s.executeUpdate("UPDATE featurestore_lease SET owner = 'intruder', token = token + 1"
            + " WHERE name = 'cdc:cdc.events#s'")).isEqualTo(1);
      }
      cdc.insert("users", "2", Map.of("v", 2));
      assertThatThrownBy(cdc::flush).isInstanceOf(CdcLeaseException.class)
          .hasMessageStartingWith("Cannot commit CDC batch (sequences 2..2) to table cdc.events after 1 attempt;")
          .hasMessageContaining("the lease of shard s was lost: Cannot renew lease cdc:cdc.events#s: taken over by intruder (token 2)");
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactly(1L);
      assertThatThrownBy(cdc::close).isInstanceOf(CdcLeaseException.class);
    }
  }

  @Test
  void catalogWithoutDatabase_refusedUnlessOptedOut() {
    try (FeatureStore local = FeatureStore.openLocal(dir.resolve("store"))) {
      Catalog custom = local.unwrap(Catalog.class);
      try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store2")).catalog(custom).build()) {
        assertThatThrownBy(() -> pipeline(store, "wal-a").build()).isInstanceOf(InvalidArgumentException.class)
            .hasMessage("Cannot build CDC pipeline: the store's catalog (CUSTOM) has no database for a shard lease;"
                + " call withoutShardLease() if one writer per shard is guaranteed otherwise: s");
        try (CdcPipeline cdc = pipeline(store, "wal-a").withoutShardLease().build()) {
          assertThat(cdc.insert("users", "1", Map.of("v", 1))).isEqualTo(1);
        }
      }
    }
  }

  /** A child JVM's output lines, read on a thread. */
  private static final class Child {
    final Process process;
    final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();

    Child(Process process) {
      this.process = process;
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            lines.add(line);
          }
        } catch (Exception e) {
          // the child died
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    boolean await(String prefix, long timeoutMillis) throws InterruptedException {
      long end = System.currentTimeMillis() + timeoutMillis;
      while (System.currentTimeMillis() < end) {
        if (lines.stream().anyMatch(l -> l.startsWith(prefix))) {
          return true;
        }
        if (!process.isAlive() && lines.stream().noneMatch(l -> l.startsWith(prefix))) {
          Thread.sleep(50);
          return lines.stream().anyMatch(l -> l.startsWith(prefix));
        }
        Thread.sleep(20);
      }
      return false;
    }

    long committed() {
      return lines.stream().filter(l -> l.startsWith("COMMITTED ")).count();
    }
  }

  private Child start(String wal, String wait, long leaseMillis) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
        CdcLeaseChild.class.getName(), dir.resolve("store").toString(), dir.resolve(wal).toString(), wait,
        Long.toString(leaseMillis));
    pb.redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("child-stderr.log").toFile()));
    return new Child(pb.start());
  }

  @Test
  void twoProcesses_twoLogDirectories_oneShard_neverBothCommit_takeOverAfterSigkill() throws Exception {
    Child a = start("wal-a", "no-wait", 2_000);
    Child b = null;
    Child c = null;
    try {
      assertThat(a.await("COMMITTED ", 60_000)).as("first child commits").isTrue();
      b = start("wal-b", "no-wait", 2_000);
      assertThat(b.await("REFUSED ", 60_000)).as("second child refused").isTrue();
      assertThat(b.lines.stream().filter(l -> l.startsWith("REFUSED ")).findFirst().orElseThrow())
          .contains("Cannot open CDC pipeline: shard s of table cdc.events is held by another pipeline: ");
      assertThat(b.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(b.committed()).isZero();

      c = start("wal-c", "wait", 2_000);
      Thread.sleep(500); // c is waiting for the lease while a commits
      assertThat(c.lines).doesNotContain("OPEN");
      a.process.destroyForcibly(); // SIGKILL: a's lease is never released
      assertThat(a.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(c.await("COMMITTED ", 60_000)).as("third child takes the shard over after the lease expired").isTrue();
      assertThat(c.lines).contains("OPEN");
    } finally {
      for (Child child : new Child[] {a, b, c}) {
        if (child != null) {
          child.process.destroyForcibly();
          child.process.waitFor(30, TimeUnit.SECONDS);
        }
      }
    }
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      List<Long> seqs = CdcTestSupport.sequences(store, LOG);
      assertThat(new HashSet<>(seqs)).as("no sequence committed twice").hasSameSizeAs(seqs);
      assertThat(seqs).hasSizeGreaterThanOrEqualTo((int) (a.committed() + c.committed()));
    }
  }
}
