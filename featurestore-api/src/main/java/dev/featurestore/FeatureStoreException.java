package dev.featurestore;

/**
 * Root of every exception the library throws on purpose. Unchecked; each subclass names what
 * the caller should do: fix the input ({@link ValidationException}, {@link InvalidDataException}),
 * look elsewhere ({@link NotFoundException}), pick another name ({@link AlreadyExistsException}),
 * retry ({@link CommitConflictException}), check before retrying ({@link CommitStateUnknownException})
 * or fix the storage ({@link StorageException}).
 *
 * <p>Messages follow one shape, {@code Cannot <verb> <object>: <reason>: <value>}, and never contain
 * credentials: neither do their causes. A message or a cause chain that holds one (a password in a
 * JDBC URL, a token parameter, see {@link Redaction}) is redacted when the exception is made.
 */
public class FeatureStoreException extends RuntimeException {
  public FeatureStoreException(String message) {
    super(Redaction.text(message));
  }

  public FeatureStoreException(String message, Throwable cause) {
    super(Redaction.text(message), Redaction.throwable(cause));
  }

  /** Sets the cause, redacted as in the constructor. */
  @Override
  public synchronized Throwable initCause(Throwable cause) {
    return super.initCause(Redaction.throwable(cause));
  }

  /**
   * {@code value} as a message shows it: control characters (C0, DEL, C1) and the Unicode line
   * and paragraph separators escaped as {@code \\uXXXX}, so a message stays one line and shows
   * what was passed; {@code "null"} for null.
   */
  public static String printable(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
