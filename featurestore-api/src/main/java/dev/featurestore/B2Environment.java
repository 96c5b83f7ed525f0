package dev.featurestore;

import static dev.featurestore.ObjectStorage.ENV_BUCKET;
import static dev.featurestore.ObjectStorage.ENV_ENDPOINT;
import static dev.featurestore.ObjectStorage.ENV_KEY;
import static dev.featurestore.ObjectStorage.ENV_KEY_ID;
import static dev.featurestore.ObjectStorage.ENV_REGION;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link ObjectStorage#fromEnvironment()}: B2 settings from the variables B2 users already have,
 * every problem named at once with what to set, credentials never echoed.
 */
final class B2Environment {
  private B2Environment() {}

  static ObjectStorage read(Map<String, String> env) {
    InvalidArgumentException.requireNonNull(env, "read B2 environment", "env");
    List<String> problems = new ArrayList<>();
    String bucket = required(env, ENV_BUCKET, false, "the name of your B2 bucket", problems);
    String endpoint = optional(env, ENV_ENDPOINT, false,
        "the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com", problems);
    String region = optional(env, ENV_REGION, false, "the bucket's region, e.g. us-west-004", problems);
    String keyId = required(env, ENV_KEY_ID, true, "the keyID of a B2 application key", problems);
    String key = required(env, ENV_KEY, true, "the applicationKey shown once when the key was created", problems);

    if (endpoint != null) {
      Optional<String> endpointRegion = ObjectStorage.b2Region(endpoint);
      if (ObjectStorage.checkEndpoint(endpoint) != null) {
        problems.add(ENV_ENDPOINT + " is not an http(s) URI (" + endpoint
            + "): set it to the bucket's S3 endpoint, e.g. https://s3.us-west-004.backblazeb2.com");
      } else if (endpointRegion.isEmpty() && region == null) {
        // with B2_REGION set, any endpoint is taken as given: a proxy, a custom domain, a local stand-in
        problems.add(ENV_ENDPOINT + " is not a B2 endpoint and names no region (" + endpoint
            + "): set it to https://s3.<region>.backblazeb2.com as shown on the bucket's page, or set "
            + ENV_REGION + " to use this endpoint as given");
      } else if (endpointRegion.isPresent() && region != null && !endpointRegion.get().equals(region)) {
        problems.add(ENV_REGION + " (" + region + ") does not match " + ENV_ENDPOINT + " (" + endpoint
            + "): set " + ENV_REGION + " to " + endpointRegion.get() + " or remove it");
      }
    } else if (region == null && isBlank(env.get(ENV_ENDPOINT)) && isBlank(env.get(ENV_REGION))) {
      problems.add(ENV_ENDPOINT + " is missing: set it to the bucket's S3 endpoint, "
          + "e.g. https://s3.us-west-004.backblazeb2.com (or set " + ENV_REGION + ")");
    }
    if (region != null && !ObjectStorage.REGION.matcher(region).matches()) {
      problems.add(ENV_REGION + " is not a region name (" + region + "): set it to e.g. us-west-004");
    }
    if (bucket != null && !ObjectStorage.BUCKET.matcher(bucket).matches()) {
      problems.add(ENV_BUCKET + " is not a bucket name (" + bucket
          + "): use the bucket's name (letters, digits and hyphens), not its id or URL");
    }
    if (!problems.isEmpty()) {
      throw new ValidationException("Cannot configure object storage from the environment: "
          + problems.size() + (problems.size() == 1 ? " problem: " : " problems: ")
          + String.join("; ", problems));
    }
    ObjectStorage.Builder builder = ObjectStorage.builder(StorageProvider.B2).bucket(bucket).credentials(keyId, key);
    if (endpoint != null) {
      builder.endpoint(endpoint);
    }
    if (region != null) {
      builder.region(region);
    }
    return builder.build();
  }

  private static String required(Map<String, String> env, String name, boolean secret, String what, List<String> problems) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      problems.add(name + " is missing: set it to " + what);
      return null;
    }
    return checkPlaceholder(name, value.strip(), secret, what, problems);
  }

  private static String optional(Map<String, String> env, String name, boolean secret, String what, List<String> problems) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return null;
    }
    return checkPlaceholder(name, value.strip(), secret, what, problems);
  }

  private static String checkPlaceholder(String name, String value, boolean secret, String what, List<String> problems) {
    if (ObjectStorage.isPlaceholder(value)) {
      // Never echo a credential variable, even a placeholder: it might be a real key after all.
      problems.add(name + " holds a placeholder" + (secret ? "" : " (" + value + ")") + ": set it to " + what);
      return null;
    }
    return value;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
