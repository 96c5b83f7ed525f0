package dev.featurestore.spi;

import dev.featurestore.DoctorReport;
import java.nio.file.Path;
import java.util.Map;

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

  /** Checks a configuration without opening a store; see {@link FeatureStore#doctor(FeatureStoreConfig)}. */
  DoctorReport doctor(FeatureStoreConfig config);

  /** Checks B2 settings from {@code env}; see {@link FeatureStore#doctorFromEnvironment(Path, Map)}. */
  DoctorReport doctorFromEnvironment(Path root, Map<String, String> env);
}
