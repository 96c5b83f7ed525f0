package dev.featurestore.duckdb;

/**
 * The state of an engine's local file cache (remote data and delete files fetched through the
 * store's FileIO).
 *
 * @param files files held
 * @param bytes bytes held
 * @param maxBytes the size bound
 * @param hits files served from the cache
 * @param misses files fetched
 * @param bytesFetched bytes fetched since the engine opened
 * @param evictions files evicted since the engine opened
 */
public record CacheStats(long files, long bytes, long maxBytes, long hits, long misses, long bytesFetched,
    long evictions) {}
