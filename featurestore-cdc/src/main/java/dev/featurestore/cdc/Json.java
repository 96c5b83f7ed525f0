package dev.featurestore.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/** Document images to and from JSON text. */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private Json() {}

  static String write(Map<String, Object> image) {
    try {
      return MAPPER.writeValueAsString(image);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot create CDC entry: image is not JSON-serializable: " + e.getOriginalMessage(), e);
    }
  }

  static Map<String, Object> read(String json) {
    try {
      return MAPPER.readValue(json, MAP);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot read CDC image: invalid JSON: " + e.getOriginalMessage(), e);
    }
  }
}
