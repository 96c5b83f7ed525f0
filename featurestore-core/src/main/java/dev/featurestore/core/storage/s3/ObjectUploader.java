package dev.featurestore.core.storage.s3;

import static java.util.Objects.requireNonNull;

import dev.featurestore.StorageException;
import dev.featurestore.StorageProvider;
import dev.featurestore.UploadListener;
import dev.featurestore.UploadResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Uploads a file or a stream as one object: one PUT up to a threshold, else a multipart upload.
 *
 * <p>A file of known length needs no buffering, so a file goes in one streamed PUT up to the
 * provider's single-PUT limit ({@link Defaults}); above it, its parts are streamed from the file
 * (re-read on a retry, never buffered), several in flight. A stream's parts go one at a time with
 * one part in memory. A failed multipart upload is aborted, so no parts linger.
 */
public final class ObjectUploader {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectUploader.class);

  /** The largest single PUT B2 accepts (5 GB; S3's is 5 GiB). */
  public static final long MAX_SINGLE_PUT = 5_000_000_000L;
  /**
   * Files up to this size go in one PUT by default: below two of Backblaze's recommended 100 MB
   * parts, splitting gains little parallelism (rclone's default cutoff for B2 and S3 is the same).
   * Above it, parallel parts win over a real network, where one connection rarely fills the link.
   */
  static final long SINGLE_PUT_LIMIT = 200L * 1024 * 1024;
  /** The most parts a multipart upload may have (B2 and S3). */
  static final int MAX_PARTS = 10_000;

  /**
   * How files are uploaded by default on a provider.
   *
   * @param singlePutLimit files up to this size go in one streamed PUT
   * @param filePartSize part size of a larger file's multipart upload
   * @param partsInFlight parts of a file uploaded at once
   */
  public record Defaults(long singlePutLimit, long filePartSize, int partsInFlight) {
    /** The defaults for {@code provider} (see docs/object-storage.md, "Upload tuning"). */
    public static Defaults of(StorageProvider provider) {
      return switch (provider) {
        // Backblaze recommends 100 MB parts (b2_authorize_account's recommendedPartSize).
        case B2 -> new Defaults(SINGLE_PUT_LIMIT, 100_000_000L, 4);
        // The part size the store's FileIO uses for data files.
        case S3, R2, MINIO -> new Defaults(SINGLE_PUT_LIMIT, S3Settings.MULTIPART_SIZE, 4);
      };
    }
  }

  /**
   * How to upload.
   *
   * @param partSize bytes per part (B2's minimum is 5,000,000)
   * @param threshold sources up to this size go in one PUT (for streams: at most one part)
   * @param partsInFlight parts of a file uploaded at once (a stream's go one at a time)
   * @param contentType the object's content type
   * @param metadata user metadata
   * @param listener progress, or null
   */
  public record Options(long partSize, long threshold, int partsInFlight, String contentType,
      Map<String, String> metadata, UploadListener listener) {
    public Options {
      requireNonNull(contentType, "contentType is null");
      metadata = Map.copyOf(metadata);
      if (partsInFlight < 1) {
        throw new IllegalArgumentException("Cannot upload: parts in flight must be at least 1: " + partsInFlight);
      }
    }

    /** A file upload with {@code provider}'s defaults. */
    public static Options forFile(StorageProvider provider, String contentType, Map<String, String> metadata,
        UploadListener listener) {
      Defaults d = Defaults.of(provider);
      return new Options(d.filePartSize(), d.singlePutLimit(), d.partsInFlight(), contentType, metadata, listener);
    }
  }

  private ObjectUploader() {}

  /** Uploads {@code file} to {@code relativeKey}. */
  public static UploadResult upload(Bucket bucket, String relativeKey, Path file, Options options) {
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (size <= Math.min(options.threshold(), MAX_SINGLE_PUT)) {
      String key = bucket.key(relativeKey);
      try {
        String etag = bucket.client().putObject(b -> b.bucket(bucket.name()).key(key)
            .contentType(options.contentType()).metadata(options.metadata()), RequestBody.fromFile(file)).eTag();
        progress(options, size, size);
        return new UploadResult(relativeKey, size, unquote(etag), 0);
      } catch (SdkException e) {
        throw bucket.translate(e, "upload object " + relativeKey);
      }
    }
    return parallelFileMultipart(bucket, relativeKey, file, size, options);
  }

  private static UploadResult parallelFileMultipart(Bucket bucket, String relativeKey, Path file, long size, Options options) {
    String key = bucket.key(relativeKey);
    String uploadId = startMultipart(bucket, relativeKey, key, options);
    // At most 10,000 parts: a larger file gets larger parts.
    long partSize = Math.max(options.partSize(), (size + MAX_PARTS - 1) / MAX_PARTS);
    int count = (int) ((size + partSize - 1) / partSize);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
        Math.min(options.partsInFlight(), count), r -> {
          Thread t = new Thread(r, "featurestore-upload");
          t.setDaemon(true);
          return t;
        });
    List<java.util.concurrent.Future<CompletedPart>> futures = new ArrayList<>(count);
    java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
    try {
      for (int i = 0; i < count; i++) {
        int partNumber = i + 1;
        long offset = (long) i * partSize;
        long length = Math.min(partSize, size - offset);
        futures.add(pool.submit(() -> {
          String etag = bucket.client().uploadPart(b -> b.bucket(bucket.name()).key(key).uploadId(uploadId)
              .partNumber(partNumber), RequestBody.fromContentProvider(() -> range(file, offset, length), length,
                  "application/octet-stream")).eTag();
          synchronized (options) { // reports in increasing order
            progress(options, sent.addAndGet(length), size);
          }
          return CompletedPart.builder().partNumber(partNumber).eTag(etag).build();
        }));
      }
      List<CompletedPart> parts = new ArrayList<>(count);
      for (java.util.concurrent.Future<CompletedPart> future : futures) {
        try {
          parts.add(future.get());
        } catch (java.util.concurrent.ExecutionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : new StorageException(
              "Cannot upload object " + relativeKey + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StorageException("Cannot upload object " + relativeKey + ": interrupted", e);
        }
      }
      String etag = bucket.client().completeMultipartUpload(b -> b.bucket(bucket.name()).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts))).eTag();
      return new UploadResult(relativeKey, size, unquote(etag), parts.size());
    } catch (RuntimeException e) {
      pool.shutdownNow();
      awaitQuietly(pool);
      abort(bucket, key, uploadId, e);
      throw uploadFailure(bucket, relativeKey, e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Waits for running part uploads to stop, so none lands after the abort. */
  private static void awaitQuietly(java.util.concurrent.ExecutorService pool) {
    try {
      pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Uploads what {@code in} holds until its end to {@code relativeKey}; {@code in} is not closed. */
  public static UploadResult upload(Bucket bucket, String relativeKey, InputStream in, Options options) {
    int bufferSize = (int) Math.min(Integer.MAX_VALUE - 8, options.partSize());
    byte[] buffer = new byte[bufferSize];
    int first = read(in, buffer);
    if (first < bufferSize && first <= options.threshold()) {
      String key = bucket.key(relativeKey);
      try {
        String etag = bucket.client().putObject(b -> b.bucket(bucket.name()).key(key)
            .contentType(options.contentType()).metadata(options.metadata()),
            RequestBody.fromContentProvider(() -> new java.io.ByteArrayInputStream(buffer, 0, first), first,
                options.contentType())).eTag();
        progress(options, first, first);
        return new UploadResult(relativeKey, first, unquote(etag), 0);
      } catch (SdkException e) {
        throw bucket.translate(e, "upload object " + relativeKey);
      }
    }
    return multipart(bucket, relativeKey, options, -1, new PartSource() {
      private int pending = first;

      @Override
      public long next(long partSize, PartConsumer consumer) {
        int n = pending >= 0 ? pending : read(in, buffer);
        pending = -1;
        if (n <= 0) {
          return 0;
        }
        consumer.accept(RequestBody.fromContentProvider(() -> new java.io.ByteArrayInputStream(buffer, 0, n), n,
            "application/octet-stream"));
        return n;
      }
    });
  }

  private interface PartConsumer {
    void accept(RequestBody body);
  }

  private interface PartSource {
    /** Hands the next part to {@code consumer} and returns its length; 0 at the end. */
    long next(long partSize, PartConsumer consumer);
  }

  private static UploadResult multipart(Bucket bucket, String relativeKey, Options options, long total, PartSource source) {
    String key = bucket.key(relativeKey);
    String uploadId = startMultipart(bucket, relativeKey, key, options);
    List<CompletedPart> parts = new ArrayList<>();
    long sent = 0;
    try {
      while (true) {
        int partNumber = parts.size() + 1;
        String[] etag = new String[1];
        long length = source.next(options.partSize(), body -> etag[0] = bucket.client().uploadPart(
            b -> b.bucket(bucket.name()).key(key).uploadId(uploadId).partNumber(partNumber), body).eTag());
        if (length == 0) {
          break;
        }
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag[0]).build());
        sent += length;
        progress(options, sent, total);
      }
      String etag = bucket.client().completeMultipartUpload(b -> b.bucket(bucket.name()).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts))).eTag();
      return new UploadResult(relativeKey, sent, unquote(etag), parts.size());
    } catch (Error e) {
      abort(bucket, key, uploadId, e);
      throw e;
    } catch (RuntimeException e) {
      abort(bucket, key, uploadId, e);
      throw uploadFailure(bucket, relativeKey, e);
    }
  }

  private static String startMultipart(Bucket bucket, String relativeKey, String key, Options options) {
    try {
      return bucket.client().createMultipartUpload(b -> b.bucket(bucket.name()).key(key)
          .contentType(options.contentType()).metadata(options.metadata())).uploadId();
    } catch (SdkException e) {
      throw bucket.translate(e, "upload object " + relativeKey);
    }
  }

  /** What a failed multipart upload throws: a source that cannot be read, or the storage failure, typed. */
  private static RuntimeException uploadFailure(Bucket bucket, String relativeKey, RuntimeException e) {
    if (e instanceof UncheckedIOException io) {
      return new StorageException("Cannot upload object " + relativeKey + ": cannot read the source: "
          + io.getCause().getMessage(), io);
    }
    return e instanceof SdkException sdk ? bucket.translate(sdk, "upload object " + relativeKey) : e;
  }

  private static void abort(Bucket bucket, String key, String uploadId, Throwable cause) {
    try {
      bucket.client().abortMultipartUpload(b -> b.bucket(bucket.name()).key(key).uploadId(uploadId));
    } catch (RuntimeException e) {
      // The parts stay until a lifecycle rule removes them; say so, the upload id is no secret.
      LOG.warn("Cannot abort multipart upload {} of {}: {}", uploadId, key, e.toString());
      cause.addSuppressed(e);
    }
  }

  private static void progress(Options options, long sent, long total) {
    if (options.listener() != null) {
      options.listener().onProgress(sent, total);
    }
  }

  /** Fills {@code buffer} from {@code in}; returns the bytes read (less than its length at the end). */
  private static int read(InputStream in, byte[] buffer) {
    try {
      return in.readNBytes(buffer, 0, buffer.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream range(Path file, long offset, long length) {
    try {
      FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
      channel.position(offset);
      return new BoundedStream(Channels.newInputStream(channel), length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String unquote(String etag) {
    if (etag == null) {
      return "";
    }
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1) : etag;
  }

  /** At most {@code limit} bytes of a stream. */
  private static final class BoundedStream extends java.io.FilterInputStream {
    private long left;

    BoundedStream(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = super.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = super.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }
}
