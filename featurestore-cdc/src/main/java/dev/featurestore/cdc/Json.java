package dev.featurestore.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import java.util.List;
import java.util.Map;

/**
 * Document images to and from JSON text. Images of plain values (strings, ints, longs, finite
 * doubles and floats, booleans, nulls, nested string-keyed maps and lists) are written by a
 * direct writer that produces exactly Jackson's text, several times faster (serializing the
 * images was half of {@code createEntry}'s time); anything else goes through Jackson.
 */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();
  private static final ThreadLocal<StringBuilder> BUFFER = ThreadLocal.withInitial(() -> new StringBuilder(256));

  /** Thrown (without a stack trace) when a value needs Jackson. */
  private static final class NotPlain extends RuntimeException {
    private static final NotPlain INSTANCE = new NotPlain();

    private NotPlain() {
      super(null, null, false, false);
    }
  }

  private Json() {}

  static String write(Map<String, Object> image) {
    StringBuilder out = BUFFER.get();
    out.setLength(0);
    try {
      writeMap(image, out);
      String json = out.toString();
      if (out.capacity() > 64 * 1024) {
        BUFFER.remove(); // do not pin one huge image's buffer to the thread
      }
      return json;
    } catch (NotPlain e) {
      return writeWithJackson(image);
    }
  }

  static String writeWithJackson(Map<String, Object> image) {
    try {
      return MAPPER.writeValueAsString(image);
    } catch (JsonProcessingException e) {
      throw new InvalidArgumentException("Cannot create CDC entry: image is not JSON-serializable: " + e.getOriginalMessage(), e);
    }
  }

  static Map<String, Object> read(String json) {
    try {
      return MAPPER.readValue(json, MAP);
    } catch (JsonProcessingException e) {
      throw new InvalidStateException("Cannot read CDC image: invalid JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static void writeMap(Map<?, ?> map, StringBuilder out) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String key)) {
        throw NotPlain.INSTANCE;
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      writeString(key, out);
      out.append(':');
      writeValue(e.getValue(), out);
    }
    out.append('}');
  }

  private static void writeValue(Object value, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      writeString(s, out);
    } else if (value instanceof Integer || value instanceof Long) {
      out.append(((Number) value).longValue());
    } else if (value instanceof Double d) {
      if (!Double.isFinite(d)) {
        throw NotPlain.INSTANCE;
      }
      out.append(d.doubleValue()); // the text of Double.toString, without the String in between
    } else if (value instanceof Float f) {
      if (!Float.isFinite(f)) {
        throw NotPlain.INSTANCE;
      }
      out.append(f.floatValue());
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue() ? "true" : "false");
    } else if (value instanceof Map<?, ?> m) {
      writeMap(m, out);
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        writeValue(list.get(i), out);
      }
      out.append(']');
    } else {
      throw NotPlain.INSTANCE;
    }
  }

  /** Jackson's default escaping: {@code "} and {@code \}, and control characters below 0x20. */
  private static void writeString(String s, StringBuilder out) {
    out.append('"');
    int n = s.length();
    int start = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(s, start, i);
      start = i + 1;
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    out.append(s, start, n);
    out.append('"');
  }
}
