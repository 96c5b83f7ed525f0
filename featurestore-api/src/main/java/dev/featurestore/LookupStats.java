package dev.featurestore;

import java.time.Duration;

/**
 * What a point lookup planned and read.
 *
 * @param snapshotId the snapshot read (-1 for an empty table)
 * @param keys keys looked up
 * @param dataFiles data files in the snapshot
 * @param filesAfterPruning files left after partition and column-statistics pruning
 * @param filesRead files whose row groups were actually read (after bloom filters and row-group statistics)
 * @param rowGroupsChecked row groups of the pruned files whose statistics and bloom filters were checked
 * @param rowGroupsRead row groups read
 * @param rowsScanned rows decoded from the row groups read
 * @param latency wall time of the whole lookup
 */
public record LookupStats(
    long snapshotId,
    int keys,
    int dataFiles,
    int filesAfterPruning,
    int filesRead,
    int rowGroupsChecked,
    int rowGroupsRead,
    long rowsScanned,
    Duration latency) {}
