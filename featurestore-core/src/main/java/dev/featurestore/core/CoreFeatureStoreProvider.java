package dev.featurestore.core;

import dev.featurestore.InvalidArgumentException;
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
    return StoreDoctor.run(InvalidArgumentException.requireNonNull(config, "run doctor", "config"));
  }

  @Override
  public DoctorReport doctorFromEnvironment(java.nio.file.Path root, java.util.Map<String, String> env) {
    InvalidArgumentException.requireNonNull(root, "run doctor", "root");
    InvalidArgumentException.requireNonNull(env, "run doctor", "env");
    return StoreDoctor.fromEnvironment(root, env);
  }
}
