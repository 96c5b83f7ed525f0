package dev.featurestore.core.testing;

import dev.featurestore.FeatureStore;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of tests that each use one store on a fresh local directory: {@link #store} is opened
 * on {@link #dir} before each test (before the subclass's own {@code @BeforeEach} methods) and
 * closed after it ({@link StoreTest}).
 */
public abstract class LocalStoreTest extends StoreTest {
  @BeforeEach
  protected final void openStore() {
    store = FeatureStore.openLocal(dir);
  }
}
