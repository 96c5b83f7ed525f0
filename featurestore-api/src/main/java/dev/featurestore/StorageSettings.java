package dev.featurestore;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.iceberg.io.FileIO;

/**
 * The storage part of a {@link FeatureStoreConfig}: where table files live (warehouse location,
 * FileIO, the bucket) and the cold tier with its local cache. Immutable; built from a {@link Draft}.
 */
final class StorageSettings {
  private final String warehouseLocation;
  private final FileIO fileIO;
  private final ObjectStorage objectStorage;
  private final ObjectStorage coldStorage;
  private final Path coldCacheDirectory;
  private final long coldCacheMaxBytes;

  private StorageSettings(Draft draft) {
    this.warehouseLocation = draft.warehouseLocation;
    this.fileIO = draft.fileIO;
    this.objectStorage = draft.objectStorage;
    this.coldStorage = draft.coldStorage;
    this.coldCacheDirectory = draft.coldCacheDirectory;
    this.coldCacheMaxBytes = draft.coldCacheMaxBytes;
  }

  Draft toDraft() {
    Draft draft = new Draft();
    draft.warehouseLocation = warehouseLocation;
    draft.fileIO = fileIO;
    draft.objectStorage = objectStorage;
    draft.coldStorage = coldStorage;
    draft.coldCacheDirectory = coldCacheDirectory;
    draft.coldCacheMaxBytes = coldCacheMaxBytes;
    return draft;
  }

  Optional<String> warehouseLocation(Path root) {
    if (warehouseLocation != null) {
      return Optional.of(warehouseLocation);
    }
    if (objectStorage != null) {
      return Optional.of(objectStorage.warehouseLocation());
    }
    return Optional.ofNullable(root).map(r -> r.resolve("warehouse").toAbsolutePath().toString());
  }

  Optional<FileIO> fileIO() {
    return Optional.ofNullable(fileIO);
  }

  Optional<ObjectStorage> objectStorage() {
    return Optional.ofNullable(objectStorage);
  }

  Optional<ObjectStorage> coldStorage() {
    return Optional.ofNullable(coldStorage);
  }

  Optional<Path> coldCacheDirectory(Path root) {
    if (coldStorage == null) {
      return Optional.empty();
    }
    if (coldCacheDirectory != null) {
      return Optional.of(coldCacheDirectory);
    }
    return Optional.ofNullable(root).map(r -> r.resolve("cold-cache"));
  }

  long coldCacheMaxBytes() {
    return coldCacheMaxBytes;
  }

  /** The storage settings as {@code toString()} prints them (buckets print without credentials). */
  String describe(Path root) {
    return ", fileIO=" + (fileIO != null ? fileIO.getClass().getSimpleName() : objectStorage != null ? "s3" : "local")
        + (objectStorage == null ? "" : ", objectStorage=" + objectStorage)
        + (coldStorage == null ? "" : ", coldStorage=" + coldStorage + ", coldCache=" + coldCacheDirectory(root).orElse(null)
            + " (" + coldCacheMaxBytes + " bytes)");
  }

  /** The mutable storage settings of a {@link FeatureStoreConfig.Builder}; each setter checks its value. */
  static final class Draft {
    private String warehouseLocation;
    private FileIO fileIO;
    private ObjectStorage objectStorage;
    private ObjectStorage coldStorage;
    private Path coldCacheDirectory;
    private long coldCacheMaxBytes = FeatureStoreConfig.DEFAULT_COLD_CACHE_BYTES;

    void warehouseLocation(String location) {
      InvalidArgumentException.requireNonNull(location, "set warehouse location", "warehouseLocation");
      if (location.isBlank()) {
        throw new InvalidArgumentException("Cannot set warehouse location: location is blank");
      }
      this.warehouseLocation = location;
    }

    void fileIO(FileIO io) {
      this.fileIO = InvalidArgumentException.requireNonNull(io, "set file IO", "fileIO");
    }

    void objectStorage(ObjectStorage storage) {
      this.objectStorage = InvalidArgumentException.requireNonNull(storage, "set object storage", "objectStorage");
    }

    void coldStorage(ObjectStorage storage) {
      this.coldStorage = InvalidArgumentException.requireNonNull(storage, "set cold storage", "coldStorage");
    }

    void coldCache(Path directory, long maxBytes) {
      InvalidArgumentException.requireNonNull(directory, "set cold cache", "directory");
      if (maxBytes <= 0) {
        throw new InvalidArgumentException("Cannot set cold cache: size bound must be positive: " + maxBytes);
      }
      this.coldCacheDirectory = directory;
      this.coldCacheMaxBytes = maxBytes;
    }

    boolean hasWarehouseLocation() {
      return warehouseLocation != null;
    }

    boolean hasObjectStorage() {
      return objectStorage != null;
    }

    /** Refuses a warehouse location outside the bucket the store writes to. */
    void checkWarehouseInBucket() {
      if (objectStorage != null && warehouseLocation != null
          && !warehouseLocation.startsWith("s3://" + objectStorage.bucket() + "/")) {
        throw new InvalidStateException(
            "Cannot configure feature store: warehouse location is outside the object storage bucket: " + warehouseLocation);
      }
    }

    /**
     * The cold tier's rules: a cache needs a tier; the tier needs a catalog that reads through the
     * store's FileIO, somewhere to cache, and a location other than the hot warehouse.
     */
    void checkColdTier(CatalogSettings.Draft catalog, Path root) {
      if (coldStorage == null) {
        if (coldCacheDirectory != null) {
          throw new InvalidStateException("Cannot configure feature store: coldCache(...) needs coldStorage(...)");
        }
        return;
      }
      if (catalog.hasCatalog() || catalog.kind() == FeatureStoreConfig.CatalogKind.REST) {
        throw new InvalidStateException(
            "Cannot configure feature store: cold storage needs the embedded or JDBC catalog (they read through the store's FileIO)");
      }
      if (root == null && coldCacheDirectory == null) {
        throw new InvalidStateException(
            "Cannot configure feature store: cold storage needs a local cache: set root(dir) or coldCache(dir, maxBytes)");
      }
      if (objectStorage != null && objectStorage.bucket().equals(coldStorage.bucket())
          && objectStorage.keyPrefix().equals(coldStorage.keyPrefix())) {
        throw new InvalidStateException(
            "Cannot configure feature store: cold storage is the hot warehouse: use another bucket or key prefix: "
                + coldStorage.bucket());
      }
    }

    StorageSettings build() {
      return new StorageSettings(this);
    }
  }
}
