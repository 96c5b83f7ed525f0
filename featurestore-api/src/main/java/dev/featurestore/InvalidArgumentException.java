package dev.featurestore;

/**
 * An argument is invalid on its own, whatever the state of the store: a negative count, a
 * malformed name, a setting out of range, a builder option that contradicts another. Nothing was
 * changed; fix the argument and call again.
 *
 * <p>{@code null} arguments are programming errors and throw {@link NullPointerException} with a
 * message naming the parameter ({@code "name is null"}), as the JDK does.
 */
public class InvalidArgumentException extends ValidationException {
  public InvalidArgumentException(String message) {
    super(message);
  }

  public InvalidArgumentException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Throws {@code InvalidArgumentException} with {@code String.format(messageFormat, args)} unless
   * {@code condition} holds. The message should follow the library's shape,
   * {@code "Cannot <verb> <object>: <reason>: %s"}.
   */
  public static void check(boolean condition, String messageFormat, Object... args) {
    if (!condition) {
      throw new InvalidArgumentException(String.format(messageFormat, args));
    }
  }
}
