package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import java.util.Locale;

/** The kind of a change: a closed set. Written to the change log in lower case. */
public enum CdcOperation {
  INSERT,
  UPDATE,
  DELETE;

  private final String code = name().toLowerCase(Locale.ROOT);

  /**
   * Parses {@code insert}, {@code update} or {@code delete} (any case; {@code i}, {@code u},
   * {@code d} and Debezium's {@code c}, {@code r} for insert are accepted too).
   *
   * @throws InvalidArgumentException for anything else: {@code Cannot create CDC entry: unknown
   *     operation: upsert}
   */
  public static CdcOperation parse(String operation) {
    if (operation != null) {
      switch (operation.trim().toLowerCase(Locale.ROOT)) {
        case "insert", "i", "c", "create", "r" -> {
          return INSERT;
        }
        case "update", "u" -> {
          return UPDATE;
        }
        case "delete", "d" -> {
          return DELETE;
        }
        default -> { }
      }
    }
    throw new InvalidArgumentException("Cannot create CDC entry: unknown operation: " + operation);
  }

  /** The lower-case name stored in the change log. */
  public String code() {
    return code;
  }
}
