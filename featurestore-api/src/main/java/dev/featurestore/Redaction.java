package dev.featurestore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of what the library prints: URIs in {@code toString()} and log lines, the
 * messages of its exceptions and the whole chain of their causes. The one rule for this in the
 * library; public so that the implementation modules use it too. Not part of the compatibility
 * promise.
 *
 * <p>What counts as a credential: the user info of a URI ({@code scheme://user:password@host}),
 * the value of a {@code password}, {@code token}, {@code secret}, {@code credential} or similar
 * parameter ({@code ?password=...}, {@code token=...}), a bearer token, and every value passed as
 * {@code secrets} (see {@link #secretsOf(FeatureStoreConfig)}).
 */
public final class Redaction {
  /** What a credential is replaced with. */
  public static final String REDACTED = "<redacted>";

  private static final Pattern USER_INFO =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/?#@\\s]+@");
  // key=value (URI queries, property maps) and "key": "value" (JSON)
  private static final String SECRET_NAME =
      "[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|credential|credentials|api[_-]?key|access[_-]?key)";
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)\\b(" + SECRET_NAME + ")(\\s*=\\s*)([^&\\s,;}\\]\"')]+)");
  private static final Pattern SECRET_JSON =
      Pattern.compile("(?i)(\"" + SECRET_NAME + "\"\\s*:\\s*\")([^\"]+)\"");
  // a bearer token has digits; "bearer token" in prose is left alone
  private static final Pattern BEARER =
      Pattern.compile("(?i)\\b(bearer\\s+)(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}");

  private Redaction() {}

  /**
   * A URI as the library prints it: without user info or query, either of which may carry
   * credentials ({@code jdbc:postgresql://db:5432/features?...}). Null stays null.
   */
  public static String uri(String uri) {
    if (uri == null) {
      return null;
    }
    String printed = uri;
    int query = printed.indexOf('?');
    if (query >= 0) {
      printed = printed.substring(0, query) + "?...";
    }
    int scheme = printed.indexOf("://");
    int at = printed.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      printed = printed.substring(0, scheme + 3) + REDACTED + printed.substring(at);
    }
    return printed;
  }

  /** {@code text} with every credential the rules above find replaced by {@value #REDACTED}. */
  public static String text(String text) {
    return text(text, List.of());
  }

  /**
   * {@code text} with every credential the rules above find, and every one of {@code secrets},
   * replaced by {@value #REDACTED}. Null stays null.
   */
  public static String text(String text, Collection<String> secrets) {
    if (text == null) {
      return null;
    }
    String redacted = text;
    for (String secret : secrets) {
      if (secret != null && !secret.isEmpty()) {
        redacted = redacted.replace(secret, REDACTED);
      }
    }
    redacted = USER_INFO.matcher(redacted).replaceAll("$1" + Matcher.quoteReplacement(REDACTED) + "@");
    redacted = SECRET_PARAMETER.matcher(redacted).replaceAll(m ->
        m.group(3).equals(REDACTED) ? Matcher.quoteReplacement(m.group())
            : Matcher.quoteReplacement(m.group(1) + m.group(2) + REDACTED));
    redacted = SECRET_JSON.matcher(redacted).replaceAll("$1" + Matcher.quoteReplacement(REDACTED) + "\"");
    redacted = BEARER.matcher(redacted).replaceAll("$1" + Matcher.quoteReplacement(REDACTED));
    return redacted;
  }

  /** As {@link #throwable(Throwable, Collection)} with the rules only. */
  public static Throwable throwable(Throwable t) {
    return throwable(t, List.of());
  }

  /**
   * {@code t} itself when no message and no {@code toString()} in its chain (causes and
   * suppressed exceptions, at any depth) holds a credential; else a copy of the chain in which
   * each exception is replaced by one that prints as the original did, credentials redacted,
   * with the original's stack trace. Null stays null.
   */
  public static Throwable throwable(Throwable t, Collection<String> secrets) {
    if (t == null || isClean(t, secrets, Collections.newSetFromMap(new IdentityHashMap<>()))) {
      return t;
    }
    return copy(t, secrets, new IdentityHashMap<>());
  }

  /**
   * The secrets a configuration holds, to pass to {@link #throwable(Throwable, Collection)} and
   * {@link #text(String, Collection)}: catalog property values whose key names a credential
   * ({@code jdbc.password}, {@code token}, {@code credential}, {@code s3.secret-access-key}, ...),
   * the password in the catalog URI, and the secret keys of the hot and cold buckets.
   */
  public static Set<String> secretsOf(FeatureStoreConfig config) {
    Set<String> secrets = new LinkedHashSet<>();
    for (Map.Entry<String, String> property : config.catalogProperties().entrySet()) {
      if (isSecretKey(property.getKey())) {
        addSecret(secrets, property.getValue());
        if ("credential".equals(property.getKey()) && property.getValue().contains(":")) {
          // client_id:client_secret: the secret may be printed on its own
          addSecret(secrets, property.getValue().substring(property.getValue().indexOf(':') + 1));
        }
      }
    }
    config.catalogUri().ifPresent(uri -> {
      Matcher m = SECRET_PARAMETER.matcher(uri);
      while (m.find()) {
        addSecret(secrets, m.group(3));
      }
      Matcher userInfo = USER_INFO.matcher(uri);
      if (userInfo.find()) {
        // user:password, which a driver may echo without its scheme (as a host it cannot resolve)
        String info = userInfo.group().substring(userInfo.group(1).length(), userInfo.group().length() - 1);
        addSecret(secrets, info);
        if (info.contains(":")) {
          addSecret(secrets, info.substring(info.indexOf(':') + 1));
        }
      }
    });
    config.objectStorage().ifPresent(storage -> addSecret(secrets, storage.secretKey()));
    config.coldStorage().ifPresent(storage -> addSecret(secrets, storage.secretKey()));
    return secrets;
  }

  /** True for a property key that names a credential. */
  public static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("password") || k.contains("secret") || k.contains("token") || k.contains("credential")
        || k.endsWith("key");
  }

  private static void addSecret(Set<String> secrets, String value) {
    if (value != null && !value.isBlank()) {
      secrets.add(value);
    }
  }

  private static boolean isClean(Throwable t, Collection<String> secrets, Set<Throwable> seen) {
    if (!seen.add(t)) {
      return true;
    }
    String message = t.getMessage();
    String printed = t.toString();
    if (!java.util.Objects.equals(message, text(message, secrets)) || !printed.equals(text(printed, secrets))) {
      return false;
    }
    for (Throwable suppressed : t.getSuppressed()) {
      if (!isClean(suppressed, secrets, seen)) {
        return false;
      }
    }
    return t.getCause() == null || isClean(t.getCause(), secrets, seen);
  }

  private static Throwable copy(Throwable t, Collection<String> secrets, Map<Throwable, Throwable> copies) {
    Throwable done = copies.get(t);
    if (done != null) {
      return done;
    }
    RedactedException copy = new RedactedException(text(t.getMessage(), secrets), text(t.toString(), secrets));
    copies.put(t, copy);
    copy.setStackTrace(t.getStackTrace());
    if (t.getCause() != null && t.getCause() != t) {
      copy.initCause(copy(t.getCause(), secrets, copies));
    }
    List<Throwable> suppressed = new ArrayList<>(List.of(t.getSuppressed()));
    for (Throwable s : suppressed) {
      copy.addSuppressed(copy(s, secrets, copies));
    }
    return copy;
  }

  /**
   * Stands in for an exception whose message held a credential: prints as the original did (its
   * class name and message), redacted.
   */
  static final class RedactedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String printed;

    RedactedException(String message, String printed) {
      super(message);
      this.printed = printed;
    }

    @Override
    public String toString() {
      return printed;
    }
  }
}
