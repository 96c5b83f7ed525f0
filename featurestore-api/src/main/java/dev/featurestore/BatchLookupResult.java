package dev.featurestore;

import java.util.Map;

/**
 * The rows found for many keys in one pass over the candidate files.
 *
 * @param rows key to row, for the keys that have one (keys without a row are absent)
 * @param stats files and row groups read, and the latency of the whole batch
 */
public record BatchLookupResult(Map<Object, Map<String, Object>> rows, LookupStats stats) {
  public BatchLookupResult {
    rows = Map.copyOf(rows);
  }
}
