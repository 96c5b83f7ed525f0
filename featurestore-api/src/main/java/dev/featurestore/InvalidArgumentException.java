package dev.featurestore;

/**
 * An argument is invalid on its own, whatever the state of the store: a negative count, a
 * malformed name, a setting out of range, a builder option that contradicts another. Nothing was
 * changed; fix the argument and call again.
 *
 * <p>A {@code null} passed to a public method, builder setter, static factory or constructor of the
 * library is an invalid argument too: it throws this exception naming the parameter, e.g. {@code
 * Cannot create table: definition is null: null} (see {@link #requireNonNull}), never a bare
 * {@link NullPointerException}.
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

  /**
   * Returns {@code value}, or throws {@code InvalidArgumentException} with the message {@code
   * "Cannot <action>: <name> is null: null"} if it is {@code null}. The check for arguments of the
   * public entry points; {@code action} is the verb and object the method's other errors use.
   *
   * <pre>{@code
   * InvalidArgumentException.requireNonNull(definition, "create table", "definition");
   * // Cannot create table: definition is null: null
   * }</pre>
   *
   * @param value the argument
   * @param action what the call does, e.g. {@code "create table"}
   * @param name the parameter's name, e.g. {@code "definition"}
   * @return {@code value}, never {@code null}
   */
  public static <T> T requireNonNull(T value, String action, String name) {
    if (value == null) {
      throw new InvalidArgumentException("Cannot " + action + ": " + name + " is null: null");
    }
    return value;
  }
}
