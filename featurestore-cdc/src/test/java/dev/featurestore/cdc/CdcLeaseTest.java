package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableId;
import dev.featurestore.core.testing.ChildJvm;
import dev.featurestore.core.testing.HandClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer per shard and table across pipelines, processes and hosts sharing the catalog. */
class CdcLeaseTest {
  private static final String HELD = "Cannot open CDC pipeline: shard s of table cdc.events is held by another pipeline: ";

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
  void leaseExpired_anotherPipelineTakesOver_theOldHolderCannotCommit() {
    HandClock clock = HandClock.aheadOfSystem();
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      CdcPipeline first = pipeline(store, "wal-a").shardLease(Duration.ofSeconds(30)).retryBackoff(Duration.ZERO).build();
      try {
        first.insert("users", "1", Map.of("v", 1));
        first.flush();
        assertThatThrownBy(() -> pipeline(store, "wal-b").leaseClock(clock).build()).isInstanceOf(CdcLeaseException.class)
            .hasMessageStartingWith(HELD);
        clock.advance(Duration.ofSeconds(31)); // past the first one's lease (as if it had paused that long)
        try (CdcPipeline second = pipeline(store, "wal-b").leaseClock(clock).build()) {
          first.insert("users", "2", Map.of("v", 2));
          assertThatThrownBy(first::flush).isInstanceOf(CdcLeaseException.class)
              .hasMessageStartingWith("Cannot commit CDC batch (sequences 2..2) to table cdc.events after 1 attempt;")
              .hasMessageContaining("the lease of shard s was lost: Cannot renew lease cdc:cdc.events#s: taken over by ");
          assertThat(second.insert("users", "3", Map.of("v", 3))).isEqualTo(2);
        }
        assertThatThrownBy(first::close).isInstanceOf(CdcLeaseException.class);
      } finally {
        try {
          first.close(); // after a failed assertion above; a no-op once closed
        } catch (CdcLeaseException e) {
          // its lease is lost
        }
      }
      assertThat(CdcTestSupport.rows(store, LOG)).extracting(r -> r.getField("doc_id")).containsExactlyInAnyOrder("1", "3");
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

  private static final long LEASE_MILLIS = 2_000;
  private static final Duration MINUTE = Duration.ofSeconds(60);

  private ChildJvm start(String wal, String wait) {
    return ChildJvm.start(CdcLeaseChild.class, dir, dir.resolve("store").toString(), dir.resolve(wal).toString(), wait,
        Long.toString(LEASE_MILLIS));
  }

  @Test
  void twoProcesses_twoLogDirectories_oneShard_neverBothCommit_takeOverAfterSigkill() throws Exception {
    long committedByA;
    long committedByC;
    try (ChildJvm a = start("wal-a", "no-wait")) {
      assertThat(a.await("COMMITTED ", MINUTE)).as("first child commits").isPresent();
      try (ChildJvm b = start("wal-b", "no-wait")) {
        assertThat(b.await("REFUSED ", MINUTE)).as("second child refused")
            .hasValueSatisfying(l -> assertThat(l).contains(HELD));
        assertThat(b.waitFor(Duration.ofSeconds(30))).as("second child ends").hasValue(0);
        assertThat(b.count("COMMITTED ")).isZero();
      }

      try (ChildJvm c = start("wal-c", "wait")) {
        // c was refused while a holds the shard, and now waits for its clock to move
        assertThat(c.await("WAITING ", MINUTE)).as("third child refused while the first commits")
            .hasValueSatisfying(l -> assertThat(l).contains(HELD));
        assertThat(c.lines()).doesNotContain("OPEN");
        a.kill(); // SIGKILL: a's lease is never released
        committedByA = a.count("COMMITTED ");
        // a renewed its lease at the latest when it died: a lease and more later, it has expired
        c.send("ADVANCE " + 2 * LEASE_MILLIS);
        assertThat(c.await("COMMITTED ", MINUTE)).as("third child takes the shard over after the lease expired")
            .isPresent();
        assertThat(c.lines()).contains("OPEN");
        c.kill();
        committedByC = c.count("COMMITTED ");
      }
    }
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      List<Long> seqs = CdcTestSupport.sequences(store, LOG);
      assertThat(new HashSet<>(seqs)).as("no sequence committed twice").hasSameSizeAs(seqs);
      assertThat(seqs).hasSizeGreaterThanOrEqualTo((int) (committedByA + committedByC));
    }
  }
}
