package dev.featurestore.benchmarks;

import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/** An in-process S3 server (s3proxy, filesystem blob store under {@code dir}, SigV4) with one bucket. */
final class LoopbackS3 implements AutoCloseable {
  static final String KEY_ID = "bench-key-id";
  static final String SECRET = "bench-secret-not-real";
  static final String BUCKET = "bench-bucket";

  private final S3Proxy proxy;

  LoopbackS3(Path dir) throws Exception {
    Path blobs = Files.createDirectories(dir.resolve("blobs"));
    Files.createDirectories(blobs.resolve(BUCKET));
    proxy = S3Proxy.builder()
        .blobStore(new FilesystemNio2BlobStore(blobs.toString()))
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, KEY_ID, SECRET)
        .build();
    proxy.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Cannot start s3proxy: " + proxy.getState());
      }
      Thread.sleep(10);
    }
  }

  String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** The B2 profile (no checksum headers, single deletes) pointed at this server. */
  ObjectStorage storage() {
    return ObjectStorage.builder(StorageProvider.B2).endpoint(endpoint()).region("us-west-004")
        .bucket(BUCKET).credentials(KEY_ID, SECRET).build();
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
  }
}
