package dev.featurestore;

import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Browses the bucket a store lives in: list, head, read, preview, presign, delete, and stage raw
 * uploads. Keys are relative to the store's key prefix ({@link ObjectStorage#keyPrefix()}): with
 * no prefix the whole bucket is visible; with one, only what lies under it. Every key is checked
 * first, by every call, with one rule ({@link ObjectStorage#checkKey}):
 * {@code InvalidArgumentException("Cannot use object key: <reason>: <key>")} for empty keys,
 * {@code ..}, {@code .} or empty segments, a leading {@code /}, backslashes, control characters
 * (shown escaped), keys above 1024 bytes. Names given to {@link #stage} must name an object, not a
 * folder (no trailing {@code /}).
 *
 * <p>The bucket layout: {@code warehouse/} holds table data and metadata (delete refuses it unless
 * forced), {@code raw/} staged uploads, {@code exports/} exported slices.
 *
 * <pre>{@code
 * ObjectBrowser objects = store.objects();
 * ObjectPage top = objects.list(ListOptions.prefix("").delimiter("/"));   // warehouse/, raw/, exports/
 * ObjectPreview first = objects.preview("raw/events.csv", 10);
 * URI link = objects.presignedGet("exports/slice.parquet", Duration.ofHours(1));
 * }</pre>
 *
 * <p>Thread-safe. Storage failures are {@link StorageException}s naming the fix; missing objects
 * are {@link NotFoundException}s. Owned by the store: closed with it.
 */
public interface ObjectBrowser {
  /** The longest expiry of a presigned URL SigV4 allows: 7 days. */
  Duration MAX_PRESIGN_EXPIRY = Duration.ofDays(7);

  /** One page of keys. */
  ObjectPage list(ListOptions options);

  /** The first page (up to 1,000 keys) under {@code prefix}. */
  default ObjectPage list(String prefix) {
    return list(ListOptions.prefix(prefix));
  }

  /** Every object under {@code prefix}, fetching pages as the stream is consumed. Close the stream. */
  Stream<ObjectSummary> listAll(String prefix);

  /** @throws NotFoundException if there is no such object */
  ObjectHead head(String key);

  /** The object's content, streamed. Close it. @throws NotFoundException if there is no such object */
  InputStream get(String key);

  /**
   * {@code length} bytes from {@code offset} (fewer at the end of the object), streamed. Close it.
   *
   * @throws InvalidArgumentException if offset is negative or length not positive
   */
  InputStream get(String key, long offset, long length);

  /** Up to {@code n} bytes from the start of the object (1 to 1 MiB). */
  byte[] firstBytes(String key, int n);

  /**
   * The first {@code rows} rows of a CSV ({@code .csv}), JSON ({@code .json}, {@code .jsonl},
   * {@code .ndjson}: lines or one array) or Parquet ({@code .parquet}) object.
   *
   * @throws ValidationException if the extension names no format it reads (use {@link #firstBytes})
   * @throws InvalidDataException if the content does not parse
   */
  ObjectPreview preview(String key, int rows);

  /**
   * Head, SHA-256 (streamed through once) and, for Parquet, schema and row count. For images
   * (JPEG, PNG, GIF, WebP, TIFF by magic bytes, else an {@code image/*} content type): dimensions,
   * format and EXIF from the first 256 KiB, when metadata-extractor is on the classpath. For PDFs
   * ({@code %PDF-}, else {@code application/pdf}) up to 64 MiB: page count and document info, when
   * PDFBox is on the classpath (the object is copied to a temporary file, deleted afterwards). A
   * missing library, an oversized PDF or unreadable content leaves that summary empty with a note in
   * {@link ObjectMetadata#notes()}; it never fails the call.
   *
   * @throws NotFoundException if there is no such object
   */
  ObjectMetadata metadata(String key);

  /**
   * A URL anyone can GET the object with until it expires, signed with the store's credentials
   * (the URL holds a signature, never the secret).
   *
   * @throws InvalidArgumentException if expiry is not between 1 second and 7 days
   */
  URI presignedGet(String key, Duration expiry);

  /** Deletes an object; keys under {@code warehouse/} are refused (see {@link #delete(String, boolean)}). */
  default void delete(String key) {
    delete(key, false);
  }

  /**
   * Deletes an object. Deleting a missing object succeeds.
   *
   * @param force allow deleting table data under {@code warehouse/}: tables that point to it break
   * @throws ValidationException if the key is under {@code warehouse/} and force is off
   */
  void delete(String key, boolean force);

  /** Starts an upload to {@code raw/<name>}. */
  ObjectUpload stage(String name);
}
