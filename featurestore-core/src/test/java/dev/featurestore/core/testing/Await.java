package dev.featurestore.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting in tests for a condition another thread brings about, when the code under test exposes
 * no latch or hook for it: polls until the condition holds or a deadline passes, never for a fixed
 * time.
 *
 * <pre>{@code
 * awaitUntil("every entry flushed", Duration.ofSeconds(20), () -> cdc.metrics().flushed() == 12);
 * }</pre>
 */
public final class Await {
  private static final long POLL_MILLIS = 5;

  private Await() {}

  /**
   * Returns as soon as {@code condition} holds.
   *
   * @throws AssertionError naming {@code what} if it still does not hold after {@code timeout}
   */
  public static void awaitUntil(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("Condition not met within " + timeout + ": " + what);
      }
      Thread.sleep(POLL_MILLIS); // the poll period, not a wait for time to pass
    }
  }
}
