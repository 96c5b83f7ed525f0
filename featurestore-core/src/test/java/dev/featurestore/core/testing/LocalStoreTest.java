package dev.featurestore.core.testing;

import dev.featurestore.FeatureStore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of tests that each use one store on a fresh local directory: {@link #store} is opened
 * before each test (before the subclass's own {@code @BeforeEach} methods) and closed after it.
 */
public abstract class LocalStoreTest {
  /** The store's root directory, new for each test. */
  @TempDir protected Path dir;
  /** The store, open during each test. */
  protected FeatureStore store;

  @BeforeEach
  protected final void openStore() {
    store = FeatureStore.openLocal(dir);
  }

  @AfterEach
  protected final void closeStore() {
    store.close();
  }
}
