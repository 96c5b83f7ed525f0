package dev.featurestore;

import java.time.Instant;

/**
 * One object in a listing.
 *
 * @param key the key, relative to the store's key prefix
 * @param size size in bytes
 * @param etag the ETag without quotes
 * @param lastModified when the object was last written
 */
public record ObjectSummary(String key, long size, String etag, Instant lastModified) {}
