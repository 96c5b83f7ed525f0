package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A child JVM for {@link CdcLeaseTest}: opens shard {@code s} of the change log with its own log
 * directory and prints {@code REFUSED <message>} if the shard is held, or {@code OPEN}, then
 * commits one entry at a time forever, printing {@code COMMITTED <seq>} after each, until killed.
 * With {@code wait}, it retries the open until the lease is free.
 */
public final class CdcLeaseChild {
  public static void main(String[] args) throws Exception {
    Path store = Path.of(args[0]);
    Path wal = Path.of(args[1]);
    boolean wait = args[2].equals("wait");
    long leaseMillis = Long.parseLong(args[3]);
    try (FeatureStore fs = FeatureStore.openLocal(store)) {
      CdcPipeline cdc = null;
      while (cdc == null) {
        try {
          cdc = CdcPipeline.builder(fs).changeLog(CdcTestSupport.LOG).shardId("s").writeAheadLog(wal)
              .flushInterval(Duration.ZERO).shardLease(Duration.ofMillis(leaseMillis)).build();
        } catch (CdcLeaseException e) {
          if (!wait) {
            System.out.println("REFUSED " + e.getMessage());
            System.out.flush();
            return;
          }
          Thread.sleep(100);
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
