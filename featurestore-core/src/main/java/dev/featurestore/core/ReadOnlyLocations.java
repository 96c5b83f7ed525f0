package dev.featurestore.core;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.catalog.StaticTables;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.apache.iceberg.io.FileIO;

/**
 * Where {@link dev.featurestore.FeatureStore#openReadOnly(String)} reads: a key in the store's bucket
 * (a location without a scheme, on a store on object storage), a URI the FileIO reads, or a local
 * path (relative to the working directory).
 */
final class ReadOnlyLocations {
  private ReadOnlyLocations() {}

  static StaticTables.Opened open(FeatureStoreConfig config, FileIO io, String location) {
    String resolved = resolve(config, location);
    try {
      return StaticTables.open(io, resolved);
    } catch (FeatureStoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw Errors.translate(e, "open table read-only from " + FeatureStoreException.printable(resolved));
    }
  }

  static String resolve(FeatureStoreConfig config, String location) {
    InvalidArgumentException.check(!location.isBlank(), "Cannot open table read-only: location is blank: '%s'",
        FeatureStoreException.printable(location));
    InvalidArgumentException.check(location.chars().noneMatch(Character::isISOControl),
        "Cannot open table read-only: control characters in location: '%s'", FeatureStoreException.printable(location));
    boolean uri = location.contains("://") || location.startsWith("file:");
    if (uri) {
      return location;
    }
    if (config.objectStorage().isPresent() && !location.startsWith("/")) {
      ObjectStorage storage = config.objectStorage().get();
      return "s3://" + storage.bucket() + "/" + storage.key(ObjectStorage.checkKey(location));
    }
    try {
      return Path.of(location).toAbsolutePath().normalize().toString();
    } catch (InvalidPathException e) {
      throw new InvalidArgumentException("Cannot open table read-only: not a valid path: '"
          + FeatureStoreException.printable(location) + "'", e);
    }
  }
}
