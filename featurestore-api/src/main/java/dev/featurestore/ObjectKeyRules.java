package dev.featurestore;


import java.nio.charset.StandardCharsets;

/**
 * The one rule set for object keys and key prefixes: a key must stay inside the store's prefix
 * and must not be able to address anything else in the bucket. Used by {@link ObjectStorage}
 * (key prefix, {@link ObjectStorage#checkKey}, {@link ObjectStorage#key}) and, through them, by
 * every object browser call, staging, exports and staged-object ingest.
 *
 * <p>Refused, with {@code InvalidArgumentException("Cannot use object key: <reason>: <key>")}:
 * empty keys, a leading {@code /}, {@code .} or {@code ..} segments, empty segments
 * ({@code a//b}), backslashes, control characters, keys longer than 1024 bytes of UTF-8. A
 * trailing {@code /} (a "folder" key) is fine.
 */
final class ObjectKeyRules {
  /** S3 and B2 both cap keys at 1024 bytes of UTF-8. */
  static final int MAX_KEY_BYTES = 1024;

  private ObjectKeyRules() {}

  /** Returns {@code key} if it is a usable object key, else throws naming the reason. */
  static String check(String key) {
    InvalidArgumentException.requireNonNull(key, "use object key", "key");
    String reason = problem(key);
    if (reason != null) {
      throw new InvalidArgumentException("Cannot use object key: " + reason + ": " + FeatureStoreException.printable(key));
    }
    return key;
  }

  /** Returns {@code name} if it is a usable key that names an object, not a folder (no trailing {@code /}). */
  static String checkName(String name) {
    check(name);
    if (name.endsWith("/")) {
      throw new InvalidArgumentException("Cannot use object name: ends with /, names a folder: " + FeatureStoreException.printable(name));
    }
    return name;
  }

  /** {@code prefix + relativeKey}, both checked; {@code prefix} is empty or ends with {@code /}. */
  static String resolve(String prefix, String relativeKey) {
    InvalidArgumentException.requireNonNull(prefix, "use object key", "prefix");
    InvalidArgumentException.requireNonNull(relativeKey, "use object key", "key");
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new InvalidArgumentException("Cannot use object key: prefix does not end with /: " + FeatureStoreException.printable(prefix));
    }
    check(relativeKey);
    return check(prefix + relativeKey);
  }

  /** Null if {@code key} is a usable key (or key prefix), else the reason. */
  static String problem(String key) {
    if (key.isEmpty()) {
      return "empty key";
    }
    if (key.startsWith("/")) {
      return "leading slash";
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.isISOControl(c)) {
        return "control character";
      }
      if (c == '\\') {
        return "backslash";
      }
    }
    if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      return "longer than " + MAX_KEY_BYTES + " bytes";
    }
    String[] segments = key.split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      String segment = segments[i];
      if (segment.equals("..")) {
        return "parent segment";
      }
      if (segment.equals(".")) {
        return "relative segment";
      }
      // A trailing slash (a "folder" key) is fine; an empty segment in the middle is not.
      if (segment.isEmpty() && i < segments.length - 1) {
        return "empty segment";
      }
    }
    return null;
  }
}
