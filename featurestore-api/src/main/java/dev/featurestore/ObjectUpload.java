package dev.featurestore;

import java.io.InputStream;
import java.nio.file.Path;

/**
 * One upload to {@code raw/}: a source, options, then {@link #commit()}. Single-use.
 *
 * <p>Up to {@link #multipartThreshold(long)} bytes go in one PUT; larger sources go as a multipart
 * upload. A file is never buffered: up to the provider's single-PUT limit it is streamed in one
 * PUT, above it its parts are streamed from the file, four in flight. A stream's parts go one at
 * a time, one part in memory. Defaults: a file goes in one PUT up to 200 MiB on every provider;
 * a larger file's parts are 100 MB on B2 (Backblaze's recommended part) and 32 MiB on S3, R2 and
 * MinIO; a stream's part is {@link #DEFAULT_PART_SIZE}. If
 * any part fails after the SDK's retries, the multipart upload is aborted, so no parts linger and
 * no object appears.
 *
 * <pre>{@code
 * UploadResult staged = store.objects().stage("events-2026-11.csv")
 *     .from(Path.of("events.csv"))
 *     .listener((sent, total) -> System.out.println(sent + "/" + total))
 *     .commit();
 * table.ingest().csvObject(staged.key()).commit();
 * }</pre>
 */
public interface ObjectUpload {
  /** The smallest part B2 accepts (5,000,000 bytes); S3, R2 and MinIO need 5 MiB (5,242,880), checked at commit. */
  long MIN_PART_SIZE = 5_000_000L;

  /** Default part size of a stream (its part is held in memory): 8 MiB. A file's default is the provider's. */
  long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

  /** Uploads this file. */
  ObjectUpload from(Path file);

  /** Uploads what this stream holds until its end; the stream is read, not closed. */
  ObjectUpload from(InputStream stream);

  /** The object's content type; default from the extension (csv, json, parquet) or {@code application/octet-stream}. */
  ObjectUpload contentType(String contentType);

  /** Adds user metadata ({@code x-amz-meta-<name>}). */
  ObjectUpload metadata(String name, String value);

  /**
   * Part size of a multipart upload, at least {@link #MIN_PART_SIZE}; default for a stream
   * {@link #DEFAULT_PART_SIZE}, for a file the provider's (see above). A file that would need more
   * than 10,000 parts gets larger parts.
   */
  ObjectUpload partSize(long bytes);

  /**
   * Sources larger than this go multipart, at most 5,000,000,000 (the largest single PUT B2
   * accepts); default for a file the provider's single-PUT limit (see above), for a stream the
   * part size. 0 sends every non-empty source as a multipart upload.
   */
  ObjectUpload multipartThreshold(long bytes);

  /** Replace an existing object (default: refuse with {@link AlreadyExistsException}). */
  ObjectUpload overwrite(boolean overwrite);

  /** Receives the bytes sent so far, on the thread that calls {@link #commit()}. */
  ObjectUpload listener(UploadListener listener);

  /**
   * Receives the bytes sent so far.
   *
   * @deprecated use {@link #listener(UploadListener)}; {@code onProgress} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default ObjectUpload onProgress(UploadListener listener) {
    return listener(listener);
  }

  /**
   * Uploads.
   *
   * @throws AlreadyExistsException if the object exists and overwrite is off (checked before
   *     uploading; B2 has no conditional writes, so a concurrent writer can still race)
   * @throws NotFoundException if the source file does not exist
   * @throws StorageException if the upload failed; nothing is left behind
   * @throws InvalidStateException if no source was set or this upload was already committed ({@code
   *     Cannot commit upload: already committed: <key>})
   */
  UploadResult commit();
}
