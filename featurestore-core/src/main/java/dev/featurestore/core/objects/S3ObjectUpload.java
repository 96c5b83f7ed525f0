package dev.featurestore.core.objects;


import dev.featurestore.AlreadyExistsException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectUpload;
import dev.featurestore.StorageProvider;
import dev.featurestore.UploadListener;
import dev.featurestore.UploadResult;
import dev.featurestore.core.base.OperationLog;
import dev.featurestore.core.storage.s3.Bucket;
import dev.featurestore.core.storage.s3.ObjectUploader;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A pending upload to {@code raw/} (see {@link ObjectUpload}). Single-use, not thread-safe. */
final class S3ObjectUpload implements ObjectUpload {
  /** S3's (and MinIO's, R2's) minimum part: 5 MiB. B2 accepts 5,000,000 bytes. */
  static final long S3_MIN_PART_SIZE = 5L * 1024 * 1024;

  private final Bucket bucket;
  private final OperationLog operations;
  private final String key;
  private Path file;
  private InputStream stream;
  private String contentType;
  private final Map<String, String> metadata = new LinkedHashMap<>();
  private long partSize = -1;
  private long threshold = -1;
  private boolean overwrite;
  private UploadListener listener;
  private boolean used;

  S3ObjectUpload(Bucket bucket, String key, OperationLog operations) {
    this.operations = operations;
    this.bucket = bucket;
    this.key = key;
  }

  @Override
  public ObjectUpload from(Path file) {
    InvalidArgumentException.requireNonNull(file, "set upload source", "file");
    checkSource();
    this.file = file;
    return this;
  }

  @Override
  public ObjectUpload from(InputStream stream) {
    InvalidArgumentException.requireNonNull(stream, "set upload source", "stream");
    checkSource();
    this.stream = stream;
    return this;
  }

  private void checkSource() {
    checkPending();
    if (file != null || stream != null) {
      throw new InvalidStateException("Cannot set upload source: already set: " + key);
    }
  }

  @Override
  public ObjectUpload contentType(String contentType) {
    InvalidArgumentException.requireNonNull(contentType, "set content type", "contentType");
    checkPending();
    if (contentType.isBlank() || contentType.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new InvalidArgumentException("Cannot set content type: blank or not printable ASCII: " + FeatureStoreException.printable(contentType));
    }
    this.contentType = contentType;
    return this;
  }

  @Override
  public ObjectUpload metadata(String name, String value) {
    InvalidArgumentException.requireNonNull(name, "set object metadata", "name");
    InvalidArgumentException.requireNonNull(value, "set object metadata", "value");
    checkPending();
    if (!name.matches("[A-Za-z0-9-]{1,64}")) {
      throw new InvalidArgumentException("Cannot set object metadata: name must be letters, digits and hyphens: " + FeatureStoreException.printable(name));
    }
    if (value.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new InvalidArgumentException("Cannot set object metadata: value must be printable ASCII: " + FeatureStoreException.printable(name));
    }
    metadata.put(name.toLowerCase(Locale.ROOT), value);
    return this;
  }

  @Override
  public ObjectUpload partSize(long bytes) {
    checkPending();
    if (bytes < MIN_PART_SIZE || bytes > 1024L * 1024 * 1024) {
      throw new InvalidArgumentException("Cannot set part size: expected 5000000 (B2's minimum) to 1 GiB: " + bytes);
    }
    this.partSize = bytes;
    return this;
  }

  @Override
  public ObjectUpload multipartThreshold(long bytes) {
    checkPending();
    if (bytes < 0 || bytes > ObjectUploader.MAX_SINGLE_PUT) {
      throw new InvalidArgumentException("Cannot set multipart threshold: expected 0 to " + ObjectUploader.MAX_SINGLE_PUT
          + " (the largest single PUT B2 accepts): " + bytes);
    }
    this.threshold = bytes;
    return this;
  }

  @Override
  public ObjectUpload overwrite(boolean overwrite) {
    checkPending();
    this.overwrite = overwrite;
    return this;
  }

  @Override
  public ObjectUpload listener(UploadListener listener) {
    checkPending();
    this.listener = InvalidArgumentException.requireNonNull(listener, "set upload listener", "listener");
    return this;
  }

  private void checkPending() {
    if (used) {
      throw new InvalidStateException("Cannot change upload: already committed: " + key);
    }
  }

  @Override
  public UploadResult commit() {
    if (used) {
      throw new InvalidStateException("Cannot commit upload: already committed: " + key);
    }
    if (file == null && stream == null) {
      throw new InvalidStateException("Cannot commit upload: no source set: " + key);
    }
    used = true;
    if (partSize >= 0 && partSize < S3_MIN_PART_SIZE && bucket.storage().provider() != StorageProvider.B2) {
      throw new InvalidArgumentException("Cannot upload object: " + bucket.storage().provider()
          + " needs parts of at least 5 MiB (5242880 bytes), only B2 accepts 5000000: " + partSize);
    }
    if (file != null && !Files.isRegularFile(file)) {
      throw new NotFoundException("Cannot upload file: file does not exist: " + file);
    }
    if (!overwrite && bucket.headIfExists(key).isPresent()) {
      throw new AlreadyExistsException("Cannot upload object: object already exists, pass overwrite(true) to replace it: " + key);
    }
    // A file needs no buffering: the provider's single-PUT limit and file part size apply. A
    // stream's part is held in memory, so a stream keeps the small default part.
    ObjectUploader.Defaults defaults = ObjectUploader.Defaults.of(bucket.storage().provider());
    long part = partSize >= 0 ? partSize : file != null ? defaults.filePartSize() : DEFAULT_PART_SIZE;
    long single = threshold >= 0 ? threshold : file != null ? defaults.singlePutLimit() : part;
    ObjectUploader.Options options = new ObjectUploader.Options(part, single, defaults.partsInFlight(),
        contentType != null ? contentType : defaultContentType(key), metadata, listener);
    UploadResult result = file != null
        ? ObjectUploader.upload(bucket, key, file, options)
        : ObjectUploader.upload(bucket, key, stream, options);
    operations.record("upload", null, null, java.util.Map.of("key", result.key(), "bytes", result.bytes(),
        "parts", result.parts(), "overwrite", overwrite));
    return result;
  }

  static String defaultContentType(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (k.endsWith(".csv")) {
      return "text/csv";
    }
    if (k.endsWith(".json")) {
      return "application/json";
    }
    if (k.endsWith(".jsonl") || k.endsWith(".ndjson")) {
      return "application/x-ndjson";
    }
    if (k.endsWith(".parquet")) {
      return "application/vnd.apache.parquet";
    }
    return "application/octet-stream";
  }
}
