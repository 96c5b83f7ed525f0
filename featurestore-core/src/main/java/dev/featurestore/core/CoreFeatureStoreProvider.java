package dev.featurestore.core;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.spi.FeatureStoreProvider;

/**
 * Registers the core implementation with {@link FeatureStore#open(FeatureStoreConfig)} through
 * {@link java.util.ServiceLoader}. Public only because the service loader requires it.
 */
public final class CoreFeatureStoreProvider implements FeatureStoreProvider {
  public CoreFeatureStoreProvider() {}

  @Override
  public FeatureStore open(FeatureStoreConfig config) {
    return DefaultFeatureStore.open(config);
  }
}
