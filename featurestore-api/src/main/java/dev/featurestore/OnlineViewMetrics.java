package dev.featurestore;

import java.util.Optional;

/**
 * Counters of an online view since it was opened, and its lag.
 *
 * @param reads keys read ({@code get} of one key counts one, a batch its keys)
 * @param found keys found
 * @param missing keys with no row
 * @param expired keys whose value is older than the TTL
 * @param materializations materializations run (any mode)
 * @param rebuilds full rebuilds among them
 * @param failedMaterializations materializations that failed
 * @param last the last materialization, if any
 * @param lag the view's lag now
 */
public record OnlineViewMetrics(
    long reads, long found, long missing, long expired, long materializations, long rebuilds,
    long failedMaterializations, Optional<OnlineMaterialization> last, OnlineLag lag) {}
