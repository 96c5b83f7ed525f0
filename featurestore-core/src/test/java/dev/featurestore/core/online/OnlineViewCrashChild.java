package dev.featurestore.core.online;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.OnlineView;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.core.base.OperationLog;
import dev.featurestore.core.base.TableHandle;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;

/**
 * Child JVM of {@link OnlineViewCrashTest}: opens the store in {@code args[0]} and materializes the
 * view ({@code args[1]}: {@code incremental} or {@code rebuild}); at the first progress point (10,000
 * rows written, uncommitted) it prints {@code MID} and waits for the SIGKILL.
 */
public final class OnlineViewCrashChild {
  private OnlineViewCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.table(SyntheticFeatures.TABLE_ID);
      Table iceberg = table.unwrap(Table.class);
      TableHandle handle = new TableHandle(SyntheticFeatures.TABLE_ID, iceberg, table.unwrap(FileIO.class), new ReentrantLock(),
          store.config(), Executors.newFixedThreadPool(2), OperationLog.forStore(store.config()), false);
      Hooks pause = point -> {
        if (point.equals("materialize.progress")) {
          System.out.println("MID");
          System.out.flush();
          try {
            Thread.sleep(Long.MAX_VALUE); // until the parent kills this process
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      };
      OnlineView view = OnlineViews.open(handle, OnlineViewCrashTest.definition(), dir.resolve("online"), () -> { }, pause);
      if (args[1].equals("rebuild")) {
        view.rebuild();
      } else {
        view.materialize();
      }
      System.out.println("DONE"); // not reached
    }
  }
}
