package dev.featurestore.spi;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;

/**
 * Service-provider interface that opens a {@link FeatureStore} from a configuration. The
 * implementation in {@code featurestore-core} registers itself through {@link
 * java.util.ServiceLoader}; applications do not call this directly.
 */
public interface FeatureStoreProvider {
  /** Opens a store; the caller owns the returned store and must close it. */
  FeatureStore open(FeatureStoreConfig config);
}
