package dev.featurestore;

/**
 * Where a table's current data lives: hot (the warehouse) or cold (the cold bucket).
 *
 * @param hotDataFiles data files of the current snapshot in the hot location
 * @param hotBytes their bytes
 * @param coldDataFiles data files of the current snapshot in the cold bucket
 * @param coldBytes their bytes
 * @param cache the store's cold cache
 */
public record TieringStatus(long hotDataFiles, long hotBytes, long coldDataFiles, long coldBytes,
    ColdCacheStats cache) {}
