package dev.featurestore.core.objects;

import static java.util.Objects.requireNonNull;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ListOptions;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.ObjectHead;
import dev.featurestore.ObjectMetadata;
import dev.featurestore.ObjectPage;
import dev.featurestore.ObjectPreview;
import dev.featurestore.ObjectStorage;
import dev.featurestore.core.base.OperationLog;
import dev.featurestore.ObjectSummary;
import dev.featurestore.ObjectUpload;
import dev.featurestore.StorageException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.storage.ParquetInput;
import dev.featurestore.core.storage.s3.Bucket;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The {@link ObjectBrowser} of a store on object storage: plain S3 calls (B2-safe: no checksum
 * headers, single deletes), keys relative to the store's key prefix and checked with
 * {@link ObjectStorage#key}. Parquet objects are read through the store's FileIO (range reads of the
 * footer and the pages needed). Image and PDF summaries in {@link #metadata} use metadata-extractor
 * and PDFBox when they are on the classpath (optional dependencies, see {@link MediaSummaries}).
 * Thread-safe.
 */
public final class S3ObjectBrowser implements ObjectBrowser, AutoCloseable {
  /** The table data folder delete refuses without force. */
  static final String WAREHOUSE = "warehouse/";
  static final int MAX_FIRST_BYTES = 1024 * 1024;
  static final int MAX_PREVIEW_ROWS = 10_000;

  private final Bucket bucket;
  private final FileIO io;
  private final OperationLog operations;

  public S3ObjectBrowser(ObjectStorage storage, FileIO io, OperationLog operations) {
    requireNonNull(storage, "storage is null");
    this.io = requireNonNull(io, "io is null");
    this.operations = requireNonNull(operations, "operations is null");
    this.bucket = Bucket.over(storage, io);
  }

  @Override
  public ObjectPage list(ListOptions options) {
    InvalidArgumentException.requireNonNull(options, "list objects", "options");
    // An empty relative prefix lists the whole store prefix; a non-empty one is checked as a key.
    String prefix = options.prefix().isEmpty() ? bucket.storage().keyPrefix() : bucket.key(options.prefix());
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(bucket.name())
        .prefix(prefix).maxKeys(options.pageSize());
    options.delimiter().ifPresent(request::delimiter);
    options.continuationToken().ifPresent(request::continuationToken);
    ListObjectsV2Response response;
    try {
      response = bucket.client().listObjectsV2(request.build());
    } catch (SdkException e) {
      throw bucket.translate(e, "list objects under " + (options.prefix().isEmpty() ? "/" : options.prefix()));
    }
    List<ObjectSummary> objects = new ArrayList<>(response.contents().size());
    for (S3Object o : response.contents()) {
      objects.add(new ObjectSummary(bucket.relative(o.key()), o.size(), unquote(o.eTag()), o.lastModified()));
    }
    List<String> prefixes = new ArrayList<>(response.commonPrefixes().size());
    for (CommonPrefix p : response.commonPrefixes()) {
      prefixes.add(bucket.relative(p.prefix()));
    }
    Optional<String> next = Boolean.TRUE.equals(response.isTruncated())
        ? Optional.ofNullable(response.nextContinuationToken()) : Optional.empty();
    return new ObjectPage(objects, prefixes, next);
  }

  @Override
  public Stream<ObjectSummary> listAll(String prefix) {
    InvalidArgumentException.requireNonNull(prefix, "list objects", "prefix");
    if (!prefix.isEmpty()) {
      bucket.key(prefix); // checked now, not at the first page
    }
    ListOptions first = ListOptions.prefix(prefix);
    Spliterator<ObjectSummary> pages = new Spliterators.AbstractSpliterator<>(Long.MAX_VALUE, Spliterator.ORDERED | Spliterator.NONNULL) {
      private ObjectPage page;
      private int index;

      @Override
      public boolean tryAdvance(Consumer<? super ObjectSummary> action) {
        while (page == null || index >= page.objects().size()) {
          if (page != null && !page.hasMore()) {
            return false;
          }
          page = list(page == null ? first : first.after(page.nextToken().get()));
          index = 0;
        }
        action.accept(page.objects().get(index++));
        return true;
      }
    };
    return StreamSupport.stream(pages, false);
  }

  @Override
  public ObjectHead head(String key) {
    String full = bucket.key(key);
    HeadObjectResponse head;
    try {
      head = bucket.client().headObject(b -> b.bucket(bucket.name()).key(full));
    } catch (SdkException e) {
      throw bucket.translate(e, "read object " + key);
    }
    return head(key, head);
  }

  static ObjectHead head(String key, HeadObjectResponse head) {
    return new ObjectHead(key, head.contentLength(), unquote(head.eTag()),
        head.contentType() == null ? "application/octet-stream" : head.contentType(), head.lastModified(),
        head.metadata());
  }

  @Override
  public InputStream get(String key) {
    String full = bucket.key(key);
    try {
      return bucket.client().getObject(b -> b.bucket(bucket.name()).key(full));
    } catch (SdkException e) {
      throw bucket.translate(e, "read object " + key);
    }
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    String full = bucket.key(key);
    InvalidArgumentException.check(offset >= 0, "Cannot read object range: negative offset: %s", offset);
    InvalidArgumentException.check(length > 0, "Cannot read object range: length must be positive: %s", length);
    String range = "bytes=" + offset + "-" + (offset + length - 1);
    try {
      return bucket.client().getObject(b -> b.bucket(bucket.name()).key(full).range(range));
    } catch (SdkException e) {
      throw bucket.translate(e, "read object " + key);
    }
  }

  @Override
  public byte[] firstBytes(String key, int n) {
    bucket.key(key);
    InvalidArgumentException.check(n >= 1 && n <= MAX_FIRST_BYTES, "Cannot read object bytes: n must be 1 to 1048576: %s", n);
    try (InputStream in = get(key, 0, n)) {
      return in.readNBytes(n);
    } catch (IOException e) {
      throw new StorageException("Cannot read object " + key + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      throw bucket.translate(e, "read object " + key);
    } catch (RuntimeException e) {
      if (isInvalidRange(e)) {
        return new byte[0]; // an empty object has no byte 0
      }
      throw e;
    }
  }

  private static boolean isInvalidRange(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof software.amazon.awssdk.services.s3.model.S3Exception s3 && s3.statusCode() == 416) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ObjectPreview preview(String key, int rows) {
    bucket.key(key);
    InvalidArgumentException.check(rows >= 1 && rows <= MAX_PREVIEW_ROWS, "Cannot preview object: rows must be 1 to 10000: %s", rows);
    ObjectPreview.Format format = format(key).orElseThrow(() -> new ValidationException(
        "Cannot preview object: unknown format, expected .csv, .json, .jsonl, .ndjson or .parquet (use firstBytes): " + key));
    try {
      return switch (format) {
        case CSV -> {
          try (InputStream in = get(key)) {
            yield Previews.csv(key, in, rows);
          }
        }
        case JSON -> {
          try (InputStream in = get(key)) {
            yield Previews.json(key, in, rows);
          }
        }
        case PARQUET -> Previews.parquet(key, input(key), rows);
      };
    } catch (IOException e) {
      throw new StorageException("Cannot preview object " + key + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      throw bucket.translate(e, "preview object " + key);
    }
  }

  static Optional<ObjectPreview.Format> format(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (k.endsWith(".csv")) {
      return Optional.of(ObjectPreview.Format.CSV);
    }
    if (k.endsWith(".json") || k.endsWith(".jsonl") || k.endsWith(".ndjson")) {
      return Optional.of(ObjectPreview.Format.JSON);
    }
    if (k.endsWith(".parquet")) {
      return Optional.of(ObjectPreview.Format.PARQUET);
    }
    return Optional.empty();
  }

  private InputFile input(String key) {
    return io.newInputFile(bucket.location(key));
  }

  @Override
  public ObjectMetadata metadata(String key) {
    MediaSummaries media = MediaSummaries.DEFAULT;
    ObjectHead head = head(key);
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot compute SHA-256: no provider", e);
    }
    byte[] first4 = new byte[4];
    int have = 0;
    MediaSummaries.Result summaries;
    // One pass: the SHA-256, the Parquet magic, and the bytes the image/PDF readers need.
    try (MediaSummaries.Reading reading = media.start(key, head.contentType(), head.size());
        InputStream in = get(key)) {
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        if (have < 4) {
          int take = Math.min(4 - have, n);
          System.arraycopy(buf, 0, first4, have, take);
          have += take;
        }
        sha.update(buf, 0, n);
        reading.accept(buf, 0, n);
      }
      summaries = reading.finish();
    } catch (IOException e) {
      throw new StorageException("Cannot read object " + key + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      throw bucket.translate(e, "read object " + key);
    }
    Optional<ObjectMetadata.ParquetSummary> parquet = Optional.empty();
    if (have == 4 && first4[0] == 'P' && first4[1] == 'A' && first4[2] == 'R' && first4[3] == '1' && head.size() >= 12) {
      parquet = Optional.of(parquetSummary(key));
    }
    return new ObjectMetadata(head, HexFormat.of().formatHex(sha.digest()), parquet, summaries.image(),
        summaries.pdf(), summaries.notes());
  }

  private ObjectMetadata.ParquetSummary parquetSummary(String key) {
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(input(key)))) {
      ParquetMetadata footer = reader.getFooter();
      MessageType schema = footer.getFileMetaData().getSchema();
      long rows = 0;
      for (BlockMetaData block : footer.getBlocks()) {
        rows += block.getRowCount();
      }
      return new ObjectMetadata.ParquetSummary(schema.toString().strip(),
          schema.getFields().stream().map(Type::getName).toList(), rows, footer.getBlocks().size());
    } catch (IOException e) {
      throw new dev.featurestore.InvalidDataException("Cannot read Parquet footer of object " + key + ": "
          + e.getMessage(), 0, null, e);
    }
  }

  @Override
  public URI presignedGet(String key, Duration expiry) {
    bucket.key(key);
    InvalidArgumentException.requireNonNull(expiry, "presign object", "expiry");
    InvalidArgumentException.check(expiry.compareTo(Duration.ofSeconds(1)) >= 0 && expiry.compareTo(MAX_PRESIGN_EXPIRY) <= 0,
        "Cannot presign object: expiry must be 1 second to 7 days: %s", expiry);
    return bucket.presignGet(key, expiry);
  }

  @Override
  public void delete(String key, boolean force) {
    String full = bucket.key(key);
    if (!force && key.startsWith(WAREHOUSE)) {
      throw new ValidationException(
          "Cannot delete object: key is under warehouse/ (table data); pass force to delete it anyway: " + key);
    }
    try {
      bucket.client().deleteObject(b -> b.bucket(bucket.name()).key(full));
    } catch (SdkException e) {
      throw bucket.translate(e, "delete object " + key);
    }
    operations.record("delete_object", null, null, java.util.Map.of("key", key, "force", force));
  }

  @Override
  public ObjectUpload stage(String name) {
    InvalidArgumentException.requireNonNull(name, "stage object", "name");
    ObjectStorage.checkObjectName(name);
    String key = "raw/" + name;
    bucket.key(key);
    return new S3ObjectUpload(bucket, key, operations);
  }

  static String unquote(String etag) {
    if (etag == null) {
      return "";
    }
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1) : etag;
  }

  @Override
  public void close() {
    bucket.close();
  }

  @Override
  public String toString() {
    return "ObjectBrowser{" + bucket + "}";
  }
}
