package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.UploadResult;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code upload}: MB/s of a raw upload of one file ({@code store.objects().stage(..).from(file)}
 * with the B2 profile's defaults) vs the SDK's own {@code putObject(RequestBody.fromFile(file))}
 * of the same file with the same client profile, to the same in-process S3 server (s3proxy on
 * loopback), alternating in one run. Every uploaded object, on both sides, is read back and must
 * have the file's size and SHA-256 (outside the timed part).
 *
 * <p>The benchmark runs itself in a child JVM with the heap capped ({@code -Xmx<heap>m}, default
 * 256), so bounded memory is part of every run, whatever {@code JAVA_OPTS} says. Settings:
 * {@code mb=} (default 256), {@code heap=} (MB, 256), {@code warmups=} (1), {@code iterations=}
 * (3), {@code partsize=} and {@code threshold=} (bytes; override the provider defaults). Target
 * ratio >= 0.9.
 */
final class UploadBenchmark {
  static final String NAME = "upload";
  private static final String CHILD = "bench.upload.child";
  private static final List<String> FORWARDED = List.of("mb", "warmups", "iterations", "only", "bench.dir",
      "partsize", "threshold", "org.slf4j.simpleLogger.defaultLogLevel");

  private UploadBenchmark() {}

  static void run() throws Exception {
    if (!Boolean.getBoolean(CHILD)) {
      System.exit(runInChild(Harness.intSetting("heap", 256)));
    }
    int mb = Harness.intSetting("mb", 256);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 3);
    long partSize = Harness.longSetting("partsize", -1);
    long threshold = Harness.longSetting("threshold", -1);
    Harness.progress("upload: mb=%d warmups=%d iterations=%d maxHeap=%dMB partsize=%s threshold=%s", mb, warmups,
        iterations, Runtime.getRuntime().maxMemory() / (1024 * 1024), partSize < 0 ? "default" : partSize,
        threshold < 0 ? "default" : threshold);
    Path dir = Harness.tempDir(NAME);
    try (LoopbackS3 s3 = new LoopbackS3(dir.resolve("s3"));
        FeatureStore store = FeatureStore.builder().root(dir.resolve("catalog")).objectStorage(s3.storage()).build();
        S3Client client = ObjectStorageIO.newClient(s3.storage())) {
      Path file = dir.resolve("upload.bin");
      long bytes = (long) mb * 1024 * 1024;
      MessageDigest fileDigest = MessageDigest.getInstance("SHA-256");
      try (OutputStream out = Files.newOutputStream(file)) {
        byte[] block = new byte[1024 * 1024];
        Random random = new Random(42);
        for (int i = 0; i < mb; i++) {
          random.nextBytes(block);
          fileDigest.update(block);
          out.write(block);
        }
      }
      String expected = HexFormat.of().formatHex(fileDigest.digest());
      List<Integer> parts = new ArrayList<>();
      Harness.Trial ours = i -> {
        var upload = store.objects().stage("bench/ours-" + i + ".bin").from(file);
        if (partSize >= 0) {
          upload.partSize(partSize);
        }
        if (threshold >= 0) {
          upload.multipartThreshold(threshold);
        }
        long start = System.nanoTime();
        UploadResult result = upload.commit();
        long nanos = Harness.elapsedNanos(start);
        parts.add(result.parts());
        verify(client, result.key(), bytes, expected);
        store.objects().delete(result.key());
        return bytes / 1e6 * 1e9 / nanos;
      };
      Harness.Trial baseline = i -> {
        String key = "raw/bench/sdk-" + i + ".bin";
        long start = System.nanoTime();
        client.putObject(b -> b.bucket(LoopbackS3.BUCKET).key(key), RequestBody.fromFile(file));
        long nanos = Harness.elapsedNanos(start);
        verify(client, key, bytes, expected);
        client.deleteObject(b -> b.bucket(LoopbackS3.BUCKET).key(key));
        return bytes / 1e6 * 1e9 / nanos;
      };
      Harness.Medians medians = Harness.alternate(NAME, "MB/s", warmups, iterations, ours, baseline);
      Harness.progress("upload: ours used %s parts (0 = one PUT); every object read back with the file's size and SHA-256",
          parts);
      Harness.result(NAME, medians, "MB/s");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  /** Reads {@code key} back and checks its size and SHA-256 against the file's. */
  private static void verify(S3Client client, String key, long bytes, String sha256) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    long read = 0;
    try (InputStream in = client.getObject(b -> b.bucket(LoopbackS3.BUCKET).key(key))) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
        read += n;
      }
    }
    String actual = HexFormat.of().formatHex(digest.digest());
    if (read != bytes || !actual.equals(sha256)) {
      throw new IllegalStateException("Cannot measure upload: object " + key + " differs from the file: " + read
          + " bytes, SHA-256 " + actual + ", expected " + bytes + " bytes, " + sha256);
    }
  }

  /** Runs this benchmark in a child JVM with {@code -Xmx<heapMb>m}; returns its exit code. */
  private static int runInChild(int heapMb) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heapMb + "m");
    command.add("-D" + CHILD + "=true");
    for (String name : FORWARDED) {
      String value = System.getProperty(name);
      if (value != null) {
        command.add("-D" + name + "=" + value);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Benchmarks.class.getName());
    command.add(NAME);
    Harness.progress("upload: running in a child JVM with -Xmx%dm", heapMb);
    return new ProcessBuilder(command).inheritIO().start().waitFor();
  }
}
