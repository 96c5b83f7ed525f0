package dev.featurestore.core;

import dev.featurestore.DoctorReport;

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

  @Override
  public DoctorReport doctor(FeatureStoreConfig config) {
    return StoreDoctor.run(java.util.Objects.requireNonNull(config, "config is null"));
  }

  @Override
  public DoctorReport doctorFromEnvironment(java.nio.file.Path root, java.util.Map<String, String> env) {
    java.util.Objects.requireNonNull(root, "root is null");
    java.util.Objects.requireNonNull(env, "env is null");
    return StoreDoctor.fromEnvironment(root, env);
  }
}
