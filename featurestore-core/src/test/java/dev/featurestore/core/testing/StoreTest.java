package dev.featurestore.core.testing;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of tests that open their store themselves (with their own settings, or only in some
 * tests): a fresh directory {@link #dir} per test, and {@link #store}, if the test opened one,
 * closed after it. {@link LocalStoreTest} opens one before every test.
 */
public abstract class StoreTest {
  /** New for each test. */
  @TempDir protected Path dir;
  /** The test's store, if it opened one; closed after the test. */
  protected FeatureStore store;

  /** Opens {@link #store} on local disk in {@code dir/store}. */
  protected final FeatureStore openLocalStore() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    return store;
  }

  @AfterEach
  protected final void closeStore() {
    if (store != null) {
      store.close();
    }
  }
}
