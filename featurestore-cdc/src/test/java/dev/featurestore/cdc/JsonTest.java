package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The direct image writer writes exactly what Jackson writes, and hands everything else to Jackson. */
class JsonTest {
  private static Map<String, Object> image(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  @Test
  void plainImages_sameTextAsJackson() {
    List<Map<String, Object>> images = new ArrayList<>();
    images.add(image());
    images.add(image("id", 42, "name", "Ann", "score", 0.5, "active", true, "gone", null));
    images.add(image("big", Long.MAX_VALUE, "small", Integer.MIN_VALUE, "neg", -0.0, "tiny", 1e-300, "huge", 1.7976931348623157e308,
        "f", 0.1f, "third", 1.0 / 3, "e23", 1e23, "round", 100.0));
    images.add(image("quote\"key", "a \"quoted\" \\ back\\slash / slash", "ctl", "\u0000\u0001\b\t\n\u000b\f\r\u001f\u007f",
        "unicode", "\u00e9\u4e2d\ud83d\ude00 \u2028", "lone", "\ud800x"));
    images.add(image("nested", image("a", List.of(1, "two", 3.5, false), "b", image("c", image())), "list",
        Arrays.asList(null, List.of(), image("x", 1)), "empty", ""));
    Random random = new Random(7);
    for (int n = 0; n < 200; n++) {
      StringBuilder s = new StringBuilder();
      for (int c = random.nextInt(20); c > 0; c--) {
        s.append((char) random.nextInt(random.nextBoolean() ? 0x80 : 0x10000));
      }
      images.add(image(s.toString(), s.toString(), "d", random.nextDouble() * Math.pow(10, random.nextInt(40) - 20),
          "l", random.nextLong(), "i", random.nextInt()));
    }
    for (Map<String, Object> img : images) {
      assertThat(Json.write(img)).isEqualTo(Json.writeWithJackson(img));
    }
  }

  @Test
  void otherValues_goThroughJackson() {
    Map<String, Object> odd = image("nan", Double.NaN, "inf", Float.POSITIVE_INFINITY, "dec", new BigDecimal("1.10"),
        "short", (short) 3, "when", Map.of(1, "int key"), "set", new java.util.TreeSet<>(List.of(2, 1)));
    assertThat(Json.write(odd)).isEqualTo(Json.writeWithJackson(odd))
        .isEqualTo("{\"nan\":\"NaN\",\"inf\":\"Infinity\",\"dec\":1.10,\"short\":3,\"when\":{\"1\":\"int key\"},\"set\":[1,2]}");
    Map<String, Object> nullKey = new HashMap<>();
    nullKey.put(null, 1);
    assertThatThrownBy(() -> Json.write(nullKey)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageStartingWith("Cannot create CDC entry: image is not JSON-serializable: ");
    Map<String, Object> instant = image("at", Instant.EPOCH);
    assertThatThrownBy(() -> Json.write(instant)).isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void writtenImages_readBackEqual() {
    Map<String, Object> img = image("id", 7, "tags", List.of("a", "b"), "inner", image("x", 1.5, "y", null));
    assertThat(Json.read(Json.write(img))).isEqualTo(img);
  }
}
