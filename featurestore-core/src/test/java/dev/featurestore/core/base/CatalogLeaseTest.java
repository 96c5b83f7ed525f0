package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogLeaseTest {
  @TempDir Path dir;

  /** A clock the test moves by hand. */
  private static final class HandClock extends Clock {
    final AtomicLong millis = new AtomicLong(1_000_000);

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }

  private CatalogLease lease(HandClock clock) {
    return new CatalogLease("jdbc:sqlite:" + dir.resolve("catalog.db"), new Properties(), clock);
  }

  @Test
  void oneOwnerAtATime_takeOverAfterExpiry_fencesTheOldHolder() {
    HandClock clock = new HandClock();
    CatalogLease leases = lease(clock);
    CatalogLease.Grant a = leases.acquire("shard/s1", "a", Duration.ofSeconds(10));
    assertThat(a.token()).isEqualTo(1);
    assertThat(leases.acquire("shard/s1", "a", Duration.ofSeconds(10)).token()).isEqualTo(1); // idempotent

    assertThatThrownBy(() -> leases.acquire("shard/s1", "b", Duration.ofSeconds(10)))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot acquire lease shard/s1: held by a until " + Instant.ofEpochMilli(1_010_000) + ": shard/s1");
    clock.millis.addAndGet(5_000);
    a = leases.renew(a, Duration.ofSeconds(10));
    clock.millis.addAndGet(9_000); // 14 s: still within the renewed lease
    assertThatThrownBy(() -> leases.acquire("shard/s1", "b", Duration.ofSeconds(10))).isInstanceOf(InvalidStateException.class);

    clock.millis.addAndGet(2_000); // expired
    CatalogLease.Grant b = leases.acquire("shard/s1", "b", Duration.ofSeconds(10));
    assertThat(b.token()).isEqualTo(2);
    CatalogLease.Grant stale = a;
    assertThatThrownBy(() -> leases.renew(stale, Duration.ofSeconds(10)))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot renew lease shard/s1: taken over by b (token 2): shard/s1");
    leases.release(stale); // no effect: b keeps it
    assertThat(leases.holder("shard/s1")).hasValueSatisfying(g -> assertThat(g.owner()).isEqualTo("b"));

    leases.release(b);
    assertThat(leases.acquire("shard/s1", "c", Duration.ofSeconds(10)).token()).isEqualTo(3);
    assertThat(leases.acquire("shard/s2", "a", Duration.ofSeconds(10)).token()).isEqualTo(1); // names are independent
  }

  @Test
  void durationMustBePositive() {
    assertThatThrownBy(() -> lease(new HandClock()).acquire("x", "a", Duration.ZERO))
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
