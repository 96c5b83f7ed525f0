package dev.featurestore.core.storage.s3;

import static java.util.Objects.requireNonNull;

/**
 * Checks object keys before the library reads, writes or deletes them: a key must stay inside
 * the configured prefix and must not be able to address anything else in the bucket.
 *
 * <p>Refused, with {@code IllegalArgumentException("Cannot use object key: <reason>: <key>")}:
 * empty keys, a leading {@code /}, {@code .} or {@code ..} segments, empty segments
 * ({@code a//b}), backslashes, control characters, keys longer than 1024 bytes, and keys
 * outside the prefix.
 */
public final class ObjectKeys {
  /** S3 and B2 both cap keys at 1024 bytes of UTF-8. */
  static final int MAX_KEY_BYTES = 1024;

  private ObjectKeys() {}

  /**
   * Returns {@code key} if it is a usable object key.
   *
   * @throws IllegalArgumentException naming the reason
   */
  public static String check(String key) {
    requireNonNull(key, "key is null");
    String reason = problem(key);
    if (reason != null) {
      throw new IllegalArgumentException("Cannot use object key: " + reason + ": " + printable(key));
    }
    return key;
  }

  /**
   * Returns {@code prefix + relativeKey} after checking that {@code relativeKey} is a usable key
   * and that the result stays under {@code prefix} (empty, or ending with {@code /}).
   *
   * @throws IllegalArgumentException naming the reason
   */
  public static String resolve(String prefix, String relativeKey) {
    requireNonNull(prefix, "prefix is null");
    requireNonNull(relativeKey, "relativeKey is null");
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException("Cannot use object key: prefix does not end with /: " + printable(prefix));
    }
    check(relativeKey);
    String key = prefix + relativeKey;
    check(key);
    return key;
  }

  /**
   * Checks that {@code key} is a usable key under {@code prefix}.
   *
   * @throws IllegalArgumentException if it is not, or if it lies outside the prefix
   */
  public static String checkUnder(String prefix, String key) {
    check(key);
    if (!key.startsWith(prefix)) {
      throw new IllegalArgumentException("Cannot use object key: outside the prefix " + printable(prefix) + ": " + printable(key));
    }
    return key;
  }

  private static String problem(String key) {
    if (key.isEmpty()) {
      return "empty key";
    }
    if (key.startsWith("/")) {
      return "leading slash";
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return "control character";
      }
      if (c == '\\') {
        return "backslash";
      }
    }
    if (key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
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

  /** The key as printed in a message: control characters escaped so a message stays one line. */
  private static String printable(String key) {
    StringBuilder sb = new StringBuilder(key.length());
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
