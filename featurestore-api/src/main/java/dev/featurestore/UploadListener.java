package dev.featurestore;

/** Receives progress of an upload: after each part and once at the end. Called on the uploading thread. */
@FunctionalInterface
public interface UploadListener {
  /**
   * @param bytesSent bytes uploaded so far
   * @param totalBytes the total when known (a file), else -1
   */
  void onProgress(long bytesSent, long totalBytes);
}
