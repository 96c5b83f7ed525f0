package dev.featurestore.core.tiering;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The child JVM of {@link TieringCrashTest}: opens the store with its cold tier and tiers every
 * file of table {@code tiering.<args[8]>}, one file per commit. At the named point (before or after the
 * commit of batch N) it prints {@code PAUSED} and waits to be killed; with point {@code none} it
 * runs to the end and prints {@code DONE}.
 */
public final class TieringCrashChild {
  private TieringCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    ObjectStorage cold = ObjectStorage.builder(StorageProvider.B2).endpoint(args[1]).region(args[2]).bucket(args[3])
        .credentials(args[4], args[5]).build();
    String point = args[6];
    int batch = Integer.parseInt(args[7]);
    try (FeatureStore store = FeatureStore.builder().root(root).coldStorage(cold).build()) {
      FeatureTable table = store.table(TableId.of("tiering", args[8]));
      TieringOperation op = (TieringOperation) table.tiering();
      op.beforeCommit = i -> pauseIf(point.equals("before-commit") && i == batch);
      op.afterCommit = i -> pauseIf(point.equals("after-commit") && i == batch);
      op.olderThan(Duration.ZERO).filesPerCommit(1).listener(p -> System.out.println("COMMITTED " + p.batch()));
      System.out.println("STARTED");
      System.out.flush();
      op.execute();
      System.out.println("DONE");
      System.out.flush();
    }
  }

  private static void pauseIf(boolean pause) {
    if (pause) {
      System.out.println("PAUSED");
      System.out.flush();
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
