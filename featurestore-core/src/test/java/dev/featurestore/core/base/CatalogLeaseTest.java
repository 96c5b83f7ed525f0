package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.testing.HandClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogLeaseTest {
  @TempDir Path dir;

  private CatalogLease lease(HandClock clock) {
    return new CatalogLease("jdbc:sqlite:" + dir.resolve("catalog.db"), new Properties(), clock);
  }

  @Test
  void oneOwnerAtATime_takeOverAfterExpiry_fencesTheOldHolder() {
    HandClock clock = HandClock.at(Instant.ofEpochMilli(1_000_000));
    oneOwnerAtATime(lease(clock), clock, "");
  }

  /**
   * The same lease rules on a PostgreSQL catalog database (the JDBC catalog kind). Runs when
   * {@code FEATURESTORE_TEST_POSTGRES_URL}, {@code _USER} and {@code _PASSWORD} are set (.ci/run
   * sets them); names carry a random prefix because the database outlives the test.
   */
  @Test
  void oneOwnerAtATime_onPostgres() {
    String url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
    Properties props = new Properties();
    props.setProperty("user", System.getenv("FEATURESTORE_TEST_POSTGRES_USER"));
    props.setProperty("password", System.getenv("FEATURESTORE_TEST_POSTGRES_PASSWORD"));
    HandClock clock = HandClock.at(Instant.ofEpochMilli(1_000_000));
    oneOwnerAtATime(new CatalogLease(url, props, clock), clock, "t" + UUID.randomUUID() + "/");
  }

  /** Two leases racing for one name on PostgreSQL: exactly one wins each round. */
  @Test
  void concurrentAcquire_onPostgres_grantsOneOwner() throws Exception {
    String url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
    Properties props = new Properties();
    props.setProperty("user", System.getenv("FEATURESTORE_TEST_POSTGRES_USER"));
    props.setProperty("password", System.getenv("FEATURESTORE_TEST_POSTGRES_PASSWORD"));
    String prefix = "r" + UUID.randomUUID() + "/";
    CatalogLease one = new CatalogLease(url, props, Clock.systemUTC());
    CatalogLease two = new CatalogLease(url, props, Clock.systemUTC());
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 10; round++) {
        String name = prefix + round;
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.Future<Boolean> a = pool.submit(() -> tryAcquire(one, name, "a", start));
        java.util.concurrent.Future<Boolean> b = pool.submit(() -> tryAcquire(two, name, "b", start));
        start.countDown();
        assertThat(a.get() ^ b.get()).as("exactly one owner of %s", name).isTrue();
        assertThat(one.holder(name).orElseThrow().owner()).isEqualTo(a.get() ? "a" : "b");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean tryAcquire(CatalogLease leases, String name, String owner, java.util.concurrent.CountDownLatch start)
      throws InterruptedException {
    start.await();
    try {
      leases.acquire(name, owner, Duration.ofMinutes(1));
      return true;
    } catch (InvalidStateException held) {
      return false;
    }
  }

  private static void oneOwnerAtATime(CatalogLease leases, HandClock clock, String prefix) {
    String s1 = prefix + "shard/s1";
    String s2 = prefix + "shard/s2";
    CatalogLease.Grant a = leases.acquire(s1, "a", Duration.ofSeconds(10));
    assertThat(a.token()).isEqualTo(1);
    assertThat(leases.acquire(s1, "a", Duration.ofSeconds(10)).token()).isEqualTo(1); // idempotent

    assertThatThrownBy(() -> leases.acquire(s1, "b", Duration.ofSeconds(10)))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot acquire lease " + s1 + ": held by a until " + Instant.ofEpochMilli(1_010_000) + ": " + s1);
    clock.advance(Duration.ofMillis(5_000));
    a = leases.renew(a, Duration.ofSeconds(10));
    clock.advance(Duration.ofMillis(9_000)); // 14 s: still within the renewed lease
    assertThatThrownBy(() -> leases.acquire(s1, "b", Duration.ofSeconds(10))).isInstanceOf(InvalidStateException.class);

    clock.advance(Duration.ofMillis(2_000)); // expired
    CatalogLease.Grant b = leases.acquire(s1, "b", Duration.ofSeconds(10));
    assertThat(b.token()).isEqualTo(2);
    CatalogLease.Grant stale = a;
    assertThatThrownBy(() -> leases.renew(stale, Duration.ofSeconds(10)))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot renew lease " + s1 + ": taken over by b (token 2): " + s1);
    leases.release(stale); // no effect: b keeps it
    assertThat(leases.holder(s1)).hasValueSatisfying(g -> assertThat(g.owner()).isEqualTo("b"));

    leases.release(b);
    assertThat(leases.acquire(s1, "c", Duration.ofSeconds(10)).token()).isEqualTo(3);
    assertThat(leases.acquire(s2, "a", Duration.ofSeconds(10)).token()).isEqualTo(1); // names are independent
    leases.close(); // drops the kept connection; the next call opens a new one
    assertThat(leases.holder(s1)).hasValueSatisfying(g -> assertThat(g.owner()).isEqualTo("c"));
  }

  @Test
  void durationMustBePositive() {
    assertThatThrownBy(() -> lease(HandClock.at(Instant.ofEpochMilli(1_000_000))).acquire("x", "a", Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot acquire lease: duration must be positive: PT0S");
  }

  @Test
  void forStore_usesTheEmbeddedCatalogFile_andNoneForCustomCatalogs() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureStoreConfig config = store.config();
      CatalogLease leases = CatalogLease.forStore(config, Clock.systemUTC()).orElseThrow();
      assertThat(leases.acquire("n", "a", Duration.ofSeconds(1)).token()).isEqualTo(1);
      // a second handle on the same store sees the lease
      assertThatThrownBy(() -> CatalogLease.forStore(config, Clock.systemUTC()).orElseThrow()
          .acquire("n", "b", Duration.ofSeconds(30))).isInstanceOf(InvalidStateException.class);
    }
  }
}
