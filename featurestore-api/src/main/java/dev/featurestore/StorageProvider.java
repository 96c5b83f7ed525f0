package dev.featurestore;

/**
 * The S3-compatible object stores the library has a profile for. A profile fixes the defaults a
 * provider needs (region, addressing style, checksum headers, delete path); see
 * {@link ObjectStorage}.
 */
public enum StorageProvider {
  /**
   * Backblaze B2 through its S3-compatible API: endpoint {@code https://s3.<region>.backblazeb2.com},
   * region required, no flexible checksum headers, no bulk delete, no conditional writes.
   */
  B2,
  /**
   * Cloudflare R2: endpoint {@code https://<account-id>.r2.cloudflarestorage.com}, region {@code auto},
   * flexible checksums only when an operation requires one.
   */
  R2,
  /**
   * MinIO (or any self-hosted S3 server): endpoint required, path-style addressing, region
   * {@code us-east-1} by default, {@code Content-MD5} on multi-object deletes.
   */
  MINIO,
  /** Amazon S3: region required, endpoint optional. */
  S3
}
