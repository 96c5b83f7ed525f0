package dev.featurestore;


import java.util.regex.Pattern;

/**
 * Identifies a table in a store: a namespace and a name, written {@code namespace.name}
 * (for example {@code features.feature_events}).
 *
 * <p>Both parts are lower-case-friendly identifiers of 1 to {@value #MAX_PART_LENGTH} characters:
 * ASCII letters, digits and underscores, starting with a letter or underscore. This keeps names
 * safe as object-store keys, file names and SQL identifiers. Anything else (a dot inside a part,
 * an empty part, {@code /}, {@code ..}, whitespace, control characters, non-ASCII letters or
 * emoji, more than {@value #MAX_PART_LENGTH} characters) throws {@link InvalidArgumentException}
 * naming the part and the value (control characters escaped as {@code \\uXXXX}).
 */
public record TableId(String namespace, String name) {
  /** The longest namespace or name accepted. */
  public static final int MAX_PART_LENGTH = 128;

  private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public TableId {
    InvalidArgumentException.requireNonNull(namespace, "use table id", "namespace");
    InvalidArgumentException.requireNonNull(name, "use table id", "name");
    checkPart("namespace", namespace);
    checkPart("name", name);
  }

  /**
   * Parses {@code namespace.name}.
   *
   * @throws InvalidArgumentException unless the text is two valid parts joined by one dot
   */
  public static TableId parse(String qualifiedName) {
    InvalidArgumentException.requireNonNull(qualifiedName, "parse table id", "qualifiedName");
    int dot = qualifiedName.indexOf('.');
    InvalidArgumentException.check(dot > 0 && dot == qualifiedName.lastIndexOf('.') && dot < qualifiedName.length() - 1,
        "Cannot parse table id: expected namespace.name: '%s'", FeatureStoreException.printable(qualifiedName));
    return new TableId(qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1));
  }

  public static TableId of(String namespace, String name) {
    return new TableId(namespace, name);
  }

  private static void checkPart(String what, String value) {
    String reason;
    if (value.isEmpty()) {
      reason = "is empty";
    } else if (value.length() > MAX_PART_LENGTH) {
      reason = "longer than " + MAX_PART_LENGTH + " characters (" + value.length() + ")";
    } else if (!PART.matcher(value).matches()) {
      reason = "expected letters, digits and underscores, starting with a letter or underscore";
    } else {
      return;
    }
    throw new InvalidArgumentException(
        "Cannot use table " + what + ": " + reason + ": '" + FeatureStoreException.printable(value) + "'");
  }

  @Override
  public String toString() {
    return namespace + "." + name;
  }
}
