package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.testing.HandClock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A child JVM for {@link CdcLeaseTest}: opens shard {@code s} of the change log with its own log
 * directory and prints {@code REFUSED <message>} if the shard is held, or {@code OPEN}, then
 * commits one entry at a time forever, printing {@code COMMITTED <seq>} after each, until killed.
 * With {@code wait}, a refused open prints {@code WAITING <message>} and waits for a line
 * {@code ADVANCE <millis>} on standard input, which moves the clock its lease expires by (the
 * system clock until then) forward, and tries again.
 */
public final class CdcLeaseChild {
  public static void main(String[] args) throws Exception {
    Path store = Path.of(args[0]);
    Path wal = Path.of(args[1]);
    boolean wait = args[2].equals("wait");
    long leaseMillis = Long.parseLong(args[3]);
    HandClock clock = HandClock.aheadOfSystem();
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (FeatureStore fs = FeatureStore.openLocal(store)) {
      CdcPipeline cdc = null;
      while (cdc == null) {
        try {
          cdc = CdcPipeline.builder(fs).changeLog(CdcTestSupport.LOG).shardId("s").writeAheadLog(wal)
              .flushInterval(Duration.ZERO).shardLease(Duration.ofMillis(leaseMillis)).leaseClock(clock).build();
        } catch (CdcLeaseException e) {
          System.out.println((wait ? "WAITING " : "REFUSED ") + e.getMessage());
          System.out.flush();
          if (!wait) {
            return;
          }
          String command = commands.readLine();
          if (command == null || !command.startsWith("ADVANCE ")) {
            throw new IllegalStateException("Cannot wait for the lease: expected ADVANCE <millis>: " + command);
          }
          clock.advance(Duration.ofMillis(Long.parseLong(command.substring("ADVANCE ".length()))));
        }
      }
      System.out.println("OPEN");
      System.out.flush();
      for (int i = 0; ; i++) {
        long seq = cdc.insert("users", Integer.toString(i), Map.of("v", i));
        cdc.flush();
        System.out.println("COMMITTED " + seq);
        System.out.flush();
      }
    }
  }
}
