package dev.featurestore.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock for {@code FeatureStoreConfig.Builder.clock(...)} that runs with the system clock and can
 * be moved ahead: a test advances it instead of sleeping. Never behind the system clock, so the
 * commit times Iceberg stamps (system time) are never in its future.
 */
public final class TestClock extends Clock {
  private volatile Duration ahead = Duration.ZERO;

  /** Moves the clock forward by {@code by}. */
  public void advance(Duration by) {
    ahead = ahead.plus(by);
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(ahead);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("TestClock is UTC only");
  }

  @Override
  public String toString() {
    return "TestClock{ahead=" + ahead + "}";
  }
}
