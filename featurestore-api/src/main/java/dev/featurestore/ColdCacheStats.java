package dev.featurestore;

/**
 * The store's local cache of cold data files (whole files, least recently used evicted first).
 *
 * @param files files held
 * @param bytes bytes held
 * @param maxBytes the size bound
 * @param hits reads served from the cache
 * @param misses reads that fetched the file from the cold bucket
 * @param bytesFetched bytes fetched from the cold bucket since the store opened
 * @param evictions files evicted since the store opened
 */
public record ColdCacheStats(long files, long bytes, long maxBytes, long hits, long misses, long bytesFetched,
    long evictions) {}
