package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.UploadResult;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code upload}: MB/s of a raw upload of one file ({@code store.objects().stage(..).from(file)},
 * multipart, 8 MiB parts) vs the SDK's own {@code putObject(RequestBody.fromFile(file))} of the
 * same file with the same client profile, to an in-process S3 server (s3proxy on loopback).
 * Run it with the heap capped ({@code JAVA_OPTS=-Xmx256m}) to show bounded memory. Settings:
 * {@code -Dmb=} (default 256), {@code -Dwarmups=} (1), {@code -Diterations=} (3). Target ratio >= 0.9.
 */
final class UploadBenchmark {
  static final String NAME = "upload";

  private UploadBenchmark() {}

  static void run() throws Exception {
    int mb = Harness.intSetting("mb", 256);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    Harness.progress("upload: mb=%d warmups=%d iterations=%d maxHeap=%dMB", mb, warmups, iterations,
        Runtime.getRuntime().maxMemory() / (1024 * 1024));
    Path dir = Harness.tempDir(NAME);
    try (LoopbackS3 s3 = new LoopbackS3(dir.resolve("s3"));
        FeatureStore store = FeatureStore.builder().root(dir.resolve("catalog")).objectStorage(s3.storage()).build();
        S3Client client = ObjectStorageIO.newClient(s3.storage())) {
      Path file = dir.resolve("upload.bin");
      long bytes = (long) mb * 1024 * 1024;
      try (OutputStream out = Files.newOutputStream(file)) {
        byte[] block = new byte[1024 * 1024];
        Random random = new Random(42);
        for (int i = 0; i < mb; i++) {
          random.nextBytes(block);
          out.write(block);
        }
      }
      Harness.Trial ours = i -> {
        long start = System.nanoTime();
        UploadResult result = store.objects().stage("bench/ours-" + i + ".bin").from(file).commit();
        long nanos = Harness.elapsedNanos(start);
        if (result.bytes() != bytes) {
          throw new IllegalStateException("Cannot measure upload: expected " + bytes + " bytes, got: " + result.bytes());
        }
        store.objects().delete(result.key());
        return bytes / 1e6 * 1e9 / nanos;
      };
      Harness.Trial baseline = i -> {
        String key = "raw/bench/sdk-" + i + ".bin";
        long start = System.nanoTime();
        client.putObject(b -> b.bucket(LoopbackS3.BUCKET).key(key), RequestBody.fromFile(file));
        long nanos = Harness.elapsedNanos(start);
        client.deleteObject(b -> b.bucket(LoopbackS3.BUCKET).key(key));
        return bytes / 1e6 * 1e9 / nanos;
      };
      Harness.Medians medians = Harness.alternate(NAME, "MB/s", warmups, iterations, ours, baseline);
      Harness.result(NAME, medians, "MB/s");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }
}
