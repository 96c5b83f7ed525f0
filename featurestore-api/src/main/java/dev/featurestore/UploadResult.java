package dev.featurestore;

/**
 * An upload that landed.
 *
 * @param key the key, relative to the store's key prefix
 * @param bytes bytes uploaded
 * @param etag the ETag without quotes
 * @param parts multipart parts; 0 for a single PUT
 */
public record UploadResult(String key, long bytes, String etag, int parts) {}
