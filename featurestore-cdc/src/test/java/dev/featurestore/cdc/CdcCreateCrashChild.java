package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.core.testing.PausingMetadataFileIO;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child JVM of {@link CdcCreateCrashTest}: builds a change-log and current-state pipeline on
 * the new store at {@code args[0]}, pausing to be killed when the first table's first metadata
 * file appears, left at 0 bytes ({@code args[2]} {@code empty}) or complete.
 */
public final class CdcCreateCrashChild {
  private CdcCreateCrashChild() {}

  public static void main(String[] args) throws Exception {
    try (FeatureStore store = FeatureStore.builder().root(Path.of(args[0]))
        .fileIO(new PausingMetadataFileIO(args[2].equals("empty"))).build();
        CdcPipeline cdc = CdcPipeline.builder(store).changeLog(CdcTestSupport.LOG).currentState(CdcTestSupport.STATE)
            .shardId("s").writeAheadLog(Path.of(args[1])).flushInterval(Duration.ZERO).build()) {
      System.out.println("DONE"); // not reached
    }
  }
}
