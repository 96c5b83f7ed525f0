package dev.featurestore.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves by hand ({@link #advance}): fixed at a start ({@link #at}), or the system
 * clock plus what was advanced ({@link #aheadOfSystem}), for code that must agree with other
 * processes' real clocks while the test makes time pass at once. Thread-safe.
 */
public final class HandClock extends Clock {
  private final boolean system;
  private final AtomicLong millis;

  private HandClock(boolean system, long millis) {
    this.system = system;
    this.millis = new AtomicLong(millis);
  }

  /** Stands at {@code start} until advanced. */
  public static HandClock at(Instant start) {
    return new HandClock(false, start.toEpochMilli());
  }

  /** The system clock, plus everything advanced. */
  public static HandClock aheadOfSystem() {
    return new HandClock(true, 0);
  }

  /** Moves the clock forward by {@code amount}. */
  public void advance(Duration amount) {
    millis.addAndGet(amount.toMillis());
  }

  @Override
  public long millis() {
    return (system ? System.currentTimeMillis() : 0) + millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
