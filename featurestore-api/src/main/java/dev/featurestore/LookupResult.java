package dev.featurestore;

import java.util.Map;
import java.util.Optional;

/**
 * The row found for one key, if any, and what it took.
 *
 * @param key the key looked up
 * @param row the row (column name to value, in the lookup's columns), empty if no row has the key
 * @param stats files and row groups read, and latency
 */
public record LookupResult(Object key, Optional<Map<String, Object>> row, LookupStats stats) {}
