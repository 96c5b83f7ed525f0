package dev.featurestore;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * Identifies a table in a store: a namespace and a name, written {@code namespace.name}
 * (for example {@code features.feature_events}).
 *
 * <p>Both parts are lower-case-friendly identifiers: letters, digits and underscores, starting
 * with a letter or underscore. This keeps names safe as object-store keys and SQL identifiers.
 */
public record TableId(String namespace, String name) {
  private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  public TableId {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(name, "name is null");
    checkPart("namespace", namespace);
    checkPart("name", name);
  }

  /** Parses {@code namespace.name}. */
  public static TableId parse(String qualifiedName) {
    requireNonNull(qualifiedName, "qualifiedName is null");
    int dot = qualifiedName.indexOf('.');
    if (dot <= 0 || dot != qualifiedName.lastIndexOf('.') || dot == qualifiedName.length() - 1) {
      throw new IllegalArgumentException(
          "Cannot parse table id: expected namespace.name: " + qualifiedName);
    }
    return new TableId(qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1));
  }

  public static TableId of(String namespace, String name) {
    return new TableId(namespace, name);
  }

  private static void checkPart(String what, String value) {
    if (!PART.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "Cannot use table " + what + ": expected letters, digits and underscores, starting with a letter or underscore: "
              + value);
    }
  }

  @Override
  public String toString() {
    return namespace + "." + name;
  }
}
