package dev.featurestore.core;

import dev.featurestore.DoctorReport;
import dev.featurestore.DoctorReport.Check;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageProvider;
import dev.featurestore.core.storage.s3.Bucket;
import dev.featurestore.core.storage.s3.ObjectStorageErrors;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The preflight behind {@link FeatureStore#doctor(FeatureStoreConfig)}: settings, endpoint,
 * credentials, region, bucket, a probe object (write, read, list, delete; always removed), and the
 * catalog. Never throws for a failing check; never puts a credential in a check.
 */
final class StoreDoctor {
  static final String PROBE_FOLDER = ".featurestore-doctor/";
  static final int CONNECT_TIMEOUT_MS = 3000;
  /** Tries to delete the probe object, each with the client's own retries. */
  static final int DELETE_TRIES = 3;
  private static final String KEY_RIGHTS =
      "give the application key list, read, write and delete access to the bucket (B2: listFiles, readFiles, writeFiles, deleteFiles)";

  private final List<Check> checks = new ArrayList<>();

  private StoreDoctor() {}

  static DoctorReport run(FeatureStoreConfig config) {
    StoreDoctor doctor = new StoreDoctor();
    try {
      doctor.check(config);
    } catch (RuntimeException e) {
      doctor.add(Check.fail("doctor", "stopped by an unexpected " + e.getClass().getSimpleName(),
          "report this; the checks above ran"));
    }
    return new DoctorReport(doctor.checks);
  }

  static DoctorReport fromEnvironment(Path root, Map<String, String> env) {
    StoreDoctor doctor = new StoreDoctor();
    try {
      Optional<ObjectStorage> storage = doctor.environment(env);
      if (storage.isPresent()) {
        doctor.check(FeatureStore.builder().root(root).objectStorage(storage.get()).config());
      }
    } catch (RuntimeException e) {
      doctor.add(Check.fail("doctor", "stopped by an unexpected " + e.getClass().getSimpleName(),
          "report this; the checks above ran"));
    }
    return new DoctorReport(doctor.checks);
  }

  private void add(Check check) {
    checks.add(check);
  }

  private boolean failed() {
    return checks.stream().anyMatch(c -> c.status() == DoctorReport.Status.FAIL);
  }

  // ---- environment

  private Optional<ObjectStorage> environment(Map<String, String> env) {
    variable(env, ObjectStorage.ENV_BUCKET, false, true, "the name of your B2 bucket (not its id or URL)");
    boolean endpointSet = !isBlank(env.get(ObjectStorage.ENV_ENDPOINT));
    boolean regionSet = !isBlank(env.get(ObjectStorage.ENV_REGION));
    if (endpointSet || !regionSet) {
      variable(env, ObjectStorage.ENV_ENDPOINT, false, true,
          "the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com (shown on the bucket's page)");
    }
    if (regionSet) {
      variable(env, ObjectStorage.ENV_REGION, false, false, "the bucket's region, e.g. us-west-004");
    } else if (endpointSet) {
      add(Check.ok("setting " + ObjectStorage.ENV_REGION, "not set: taken from " + ObjectStorage.ENV_ENDPOINT));
    }
    variable(env, ObjectStorage.ENV_KEY_ID, true, true, "the keyID of a B2 application key");
    variable(env, ObjectStorage.ENV_KEY, true, true, "the applicationKey shown once when the key was created");
    if (failed()) {
      return Optional.empty();
    }
    try {
      return Optional.of(ObjectStorage.fromEnvironment(env));
    } catch (RuntimeException e) {
      // Consistency problems (endpoint vs region, malformed values); the message holds no secret.
      add(Check.fail("settings", e.getMessage(), "change the variables as the message says"));
      return Optional.empty();
    }
  }

  private void variable(Map<String, String> env, String name, boolean secret, boolean required, String what) {
    String value = env.get(name);
    if (isBlank(value)) {
      if (required) {
        add(Check.fail("setting " + name, "missing", "set " + name + " to " + what));
      }
      return;
    }
    if (ObjectStorage.isPlaceholder(value)) {
      add(Check.fail("setting " + name, "holds a placeholder" + (secret ? "" : ": " + value.strip()),
          "set " + name + " to " + what));
      return;
    }
    add(Check.ok("setting " + name, secret ? "set (not shown)" : value.strip()));
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  // ---- configuration

  private void check(FeatureStoreConfig config) {
    for (TransportWarnings.Warning w : TransportWarnings.of(config)) {
      if (!w.check().equals("endpoint is B2")) { // the "setting endpoint" check below says that one
        add(Check.warn(w.check(), w.detail(), w.fix()));
      }
    }
    Optional<ObjectStorage> storage = config.objectStorage();
    if (storage.isPresent() && config.fileIO().isEmpty()) {
      if (!objectStorage(storage.get())) {
        return;
      }
    } else if (config.root().isPresent()) {
      if (!localDirectory(config.root().get())) {
        return;
      }
    }
    catalog(config);
  }

  private boolean localDirectory(Path root) {
    String name = "directory writable";
    try {
      Files.createDirectories(root);
      Path probe = Files.createTempFile(root, ".featurestore-doctor-", ".tmp");
      Files.delete(probe);
      add(Check.ok(name, root.toAbsolutePath().toString()));
      return true;
    } catch (IOException | RuntimeException e) {
      add(Check.fail(name, "cannot create a file in " + root.toAbsolutePath() + " (" + e.getClass().getSimpleName() + ")",
          "choose a writable directory for root(...) or fix its permissions"));
      return false;
    }
  }

  private void catalog(FeatureStoreConfig config) {
    String name = "catalog";
    try (FeatureStore store = DefaultFeatureStore.open(config)) {
      int tables = store.listTables().size();
      add(Check.ok(name, "opens" + config.catalogFile().map(f -> ": " + f.toAbsolutePath()).orElse("")
          + " (" + tables + (tables == 1 ? " table)" : " tables)")));
    } catch (RuntimeException e) {
      add(Check.fail(name, String.valueOf(e.getMessage()),
          "check the catalog file's directory and permissions, or that no other program holds it"));
    }
  }

  /** The object storage checks; true if all passed (warnings allowed). */
  private boolean objectStorage(ObjectStorage storage) {
    settings(storage);
    if (failed()) {
      return false;
    }
    if (!endpoint(storage)) {
      return false;
    }
    // Two attempts and a short connect timeout: the doctor answers in seconds, not after a minute of retries.
    try (Bucket bucket = Bucket.open(storage, Map.of(ObjectStorageIO.MAX_ATTEMPTS, "2",
        ObjectStorageIO.CONNECT_TIMEOUT_MS, Integer.toString(CONNECT_TIMEOUT_MS)))) {
      if (!bucket(storage, bucket.client())) {
        return false;
      }
      return probe(storage, bucket.client());
    }
  }

  private void settings(ObjectStorage s) {
    placeholder("setting bucket", s.bucket(), false, "set the bucket to your bucket's name");
    if (s.endpoint().isPresent()) {
      String endpoint = s.endpoint().get();
      URI uri = URI.create(endpoint);
      if (ObjectStorage.isPlaceholder(uri.getHost() == null ? endpoint : uri.getHost().split("\\.")[0])
          || (uri.getHost() != null && uri.getHost().contains("<"))) {
        add(Check.fail("setting endpoint", "holds a placeholder: " + endpoint,
            "set the endpoint to the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com"));
      } else if (s.provider() == StorageProvider.B2 && ObjectStorage.b2Region(endpoint).isEmpty()) {
        add(Check.warn("setting endpoint", "not a Backblaze B2 endpoint: " + endpoint,
            "use the endpoint on the bucket's page (https://s3.<region>.backblazeb2.com), unless a proxy stands in front of B2"));
      } else {
        add(Check.ok("setting endpoint", endpoint));
      }
    } else {
      add(Check.ok("setting endpoint", "the AWS default for region " + s.region()));
    }
    if (s.provider() == StorageProvider.B2 && s.endpoint().flatMap(ObjectStorage::b2Region).isPresent()) {
      String endpointRegion = s.endpoint().flatMap(ObjectStorage::b2Region).get();
      if (endpointRegion.equals(s.region())) {
        add(Check.ok("setting region", s.region() + " (matches the endpoint)"));
      } else {
        add(Check.fail("setting region", s.region() + " does not match the endpoint's " + endpointRegion,
            "set the region to " + endpointRegion + " or use the endpoint of region " + s.region()));
      }
    } else {
      add(Check.ok("setting region", s.region()));
    }
    placeholder("setting access key id", s.accessKeyId(), true,
        "set the access key id (B2: B2_APPLICATION_KEY_ID, the key's keyID)");
    placeholder("setting secret key", s.secretKey(), true,
        "set the secret key (B2: B2_APPLICATION_KEY, the applicationKey shown once)");
    add(Check.ok("setting key prefix", s.keyPrefix().isEmpty() ? "none: the whole bucket" : s.keyPrefix()));
  }

  private void placeholder(String name, String value, boolean secret, String fix) {
    if (ObjectStorage.isPlaceholder(value)) {
      add(Check.fail(name, "holds a placeholder" + (secret ? "" : ": " + value), fix));
    } else {
      add(Check.ok(name, secret ? "set (not shown)" : value));
    }
  }

  private boolean endpoint(ObjectStorage s) {
    String name = "endpoint reachable";
    URI uri = URI.create(s.endpoint().orElse("https://s3." + s.region() + ".amazonaws.com"));
    String host = uri.getHost();
    int port = uri.getPort() > 0 ? uri.getPort() : "http".equalsIgnoreCase(uri.getScheme()) ? 80 : 443;
    String where = host + ":" + port;
    String fix = "check the endpoint (B2: B2_ENDPOINT, e.g. https://s3.us-west-004.backblazeb2.com) and the network";
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
      add(Check.ok(name, where));
      return true;
    } catch (UnknownHostException e) {
      add(Check.fail(name, "host not found: " + host, fix));
    } catch (ConnectException e) {
      add(Check.fail(name, "nothing answers at " + where, fix));
    } catch (SocketTimeoutException e) {
      add(Check.fail(name, "no answer within " + CONNECT_TIMEOUT_MS + " ms from " + where, fix));
    } catch (IOException | RuntimeException e) {
      add(Check.fail(name, "cannot connect to " + where + " (" + e.getClass().getSimpleName() + ")", fix));
    }
    return false;
  }

  private boolean bucket(ObjectStorage s, S3Client client) {
    try {
      Bucket.check(client, s.bucket());
      add(Check.ok("credentials", "accepted"));
      add(Check.ok("bucket", s.bucket() + " exists"));
      return true;
    } catch (NoSuchBucketException e) {
      add(Check.ok("credentials", "accepted"));
      add(Check.fail("bucket", "does not exist: " + s.bucket(),
          "create the bucket, or fix the bucket name (B2: B2_BUCKET_NAME, the name, not the id)"));
    } catch (S3Exception e) {
      int status = e.statusCode();
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      if (status == 404) {
        add(Check.ok("credentials", "accepted"));
        add(Check.fail("bucket", "does not exist: " + s.bucket(),
            "create the bucket, or fix the bucket name (B2: B2_BUCKET_NAME, the name, not the id)"));
      } else if (status == 403) {
        add(Check.fail("credentials", "rejected (HTTP 403)",
            "check the access key id and secret key (B2: B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY),"
                + " and that the key is allowed to use bucket " + s.bucket()));
      } else if (ObjectStorageErrors.isWrongRegion(e)) {
        // The signature names the region, so the store refused it before looking at the key.
        Optional<String> expected = ObjectStorageErrors.expectedRegion(e);
        add(Check.fail("region", "the store refused requests signed for region " + s.region() + " (HTTP " + status
            + (code == null ? "" : " " + code) + ")" + expected.map(r -> ": the bucket is in " + r).orElse(""),
            "set the region (B2: B2_REGION) to " + expected.orElse("the bucket's region")
                + " and use the endpoint that matches it"));
      } else {
        add(Check.fail("bucket", describe(e), "see the message; retry later for 5xx"));
      }
    } catch (SdkException | IllegalArgumentException e) {
      add(Check.fail("bucket", describe(e), "check the endpoint and the network"));
    }
    return false;
  }

  private boolean probe(ObjectStorage s, S3Client client) {
    String key = s.keyPrefix() + PROBE_FOLDER + UUID.randomUUID();
    byte[] content = ("featurestore doctor probe " + key).getBytes(StandardCharsets.UTF_8);
    boolean written = false;
    boolean deleting = false;
    boolean deleted = false;
    try {
      client.putObject(b -> b.bucket(s.bucket()).key(key).contentType("text/plain"), RequestBody.fromBytes(content));
      written = true;
      add(Check.ok("bucket write", "wrote " + key));
      try (InputStream in = client.getObject(b -> b.bucket(s.bucket()).key(key))) {
        byte[] read = in.readAllBytes();
        if (java.util.Arrays.equals(read, content)) {
          add(Check.ok("bucket read", "read back " + content.length + " bytes"));
        } else {
          add(Check.fail("bucket read", "read back different content (" + read.length + " bytes)",
              "check that nothing between you and the bucket rewrites objects"));
        }
      }
      boolean listed = client.listObjectsV2(b -> b.bucket(s.bucket()).prefix(s.keyPrefix() + PROBE_FOLDER))
          .contents().stream().anyMatch(o -> o.key().equals(key));
      add(listed ? Check.ok("bucket list", "listed " + key)
          : Check.fail("bucket list", "the probe object is missing from the listing", KEY_RIGHTS));
      deleting = true;
      int failedTries = deleteProbe(client, s.bucket(), key);
      deleted = true;
      add(failedTries == 0 ? Check.ok("bucket delete", "deleted " + key)
          : Check.warn("bucket delete", "deleted " + key + " at try " + (failedTries + 1) + " of " + DELETE_TRIES
              + " (transient storage failures)", "none needed; if it recurs, check the network and the store"));
    } catch (SdkException e) {
      if (deleting) {
        add(Check.fail("bucket delete", describe(e) + ": " + DELETE_TRIES + " tries: the probe object stays: " + key,
            KEY_RIGHTS + "; delete " + key + " by hand (it holds no data)"));
        deleted = true; // tried enough: no second round in the cleanup below
      } else {
        add(Check.fail(!written ? "bucket write" : nextStep(), describe(e), KEY_RIGHTS));
      }
    } catch (IOException e) {
      add(Check.fail("bucket read", "read failed (" + e.getClass().getSimpleName() + ")", "check the network"));
    } finally {
      if (written && !deleted) {
        try {
          deleteProbe(client, s.bucket(), key);
        } catch (RuntimeException e) {
          add(Check.warn("probe cleanup", "could not delete the probe object in " + DELETE_TRIES + " tries: " + key,
              "delete it by hand; it holds no data"));
        }
      }
    }
    return !failed();
  }

  /**
   * Deletes the probe, trying {@link #DELETE_TRIES} times (each try is itself retried by the
   * client): a probe must not stay behind because of a transient failure. Returns the failed tries;
   * throws the last failure if every try failed.
   */
  private static int deleteProbe(S3Client client, String bucket, String key) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < DELETE_TRIES; attempt++) {
      try {
        client.deleteObject(b -> b.bucket(bucket).key(key));
        return attempt;
      } catch (SdkException e) {
        last = e;
      }
    }
    throw last;
  }

  /** The probe step after the last one recorded. */
  private String nextStep() {
    String last = checks.get(checks.size() - 1).name();
    return switch (last) {
      case "bucket write" -> "bucket read";
      case "bucket read" -> "bucket list";
      default -> "bucket delete";
    };
  }

  private static String describe(RuntimeException e) {
    return ObjectStorageErrors.translate(e, "reach the bucket").map(Throwable::getMessage)
        .orElse(e.getClass().getSimpleName());
  }
}
