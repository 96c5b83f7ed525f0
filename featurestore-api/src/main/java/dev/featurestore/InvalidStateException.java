package dev.featurestore;

/**
 * An object is not in a state that allows the call: the store or pipeline is closed, a
 * single-use change was already committed, a result was already consumed, a source was set
 * twice. Nothing was changed; the call cannot succeed on this object.
 */
public class InvalidStateException extends FeatureStoreException {
  public InvalidStateException(String message) {
    super(message);
  }

  public InvalidStateException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Throws {@code InvalidStateException} with {@code String.format(messageFormat, args)} unless
   * {@code condition} holds. The message should follow the library's shape,
   * {@code "Cannot <verb> <object>: <reason>: %s"}.
   */
  public static void check(boolean condition, String messageFormat, Object... args) {
    if (!condition) {
      throw new InvalidStateException(String.format(messageFormat, args));
    }
  }
}
