package dev.featurestore.core.catalog;

import dev.featurestore.FeatureStore;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.PausingMetadataFileIO;
import java.nio.file.Path;

/**
 * The child JVM of {@link CreateCrashTest}: creates {@link SyntheticFeatures#TABLE_ID} in the
 * store at {@code args[0]}, pausing to be killed at its first metadata file, left at 0 bytes
 * ({@code args[1]} {@code empty}) or complete ({@link PausingMetadataFileIO}).
 */
public final class CreateCrashChild {
  private CreateCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    try (FeatureStore store = FeatureStore.builder().root(root)
        .fileIO(new PausingMetadataFileIO(args[1].equals("empty"))).build()) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      System.out.println("DONE"); // not reached
    }
  }
}
