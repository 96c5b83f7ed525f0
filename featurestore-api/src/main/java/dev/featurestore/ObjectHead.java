package dev.featurestore;

import java.time.Instant;
import java.util.Map;

/**
 * What a HEAD request tells about an object.
 *
 * @param key the key, relative to the store's key prefix
 * @param size size in bytes
 * @param etag the ETag without quotes
 * @param contentType the content type, {@code application/octet-stream} when the store has none
 * @param lastModified when the object was last written
 * @param userMetadata the object's user metadata ({@code x-amz-meta-*}), names lower case
 */
public record ObjectHead(String key, long size, String etag, String contentType, Instant lastModified,
    Map<String, String> userMetadata) {
  public ObjectHead {
    userMetadata = Map.copyOf(userMetadata);
  }
}
