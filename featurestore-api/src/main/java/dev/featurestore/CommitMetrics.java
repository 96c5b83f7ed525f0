package dev.featurestore;

import java.time.Duration;

/**
 * What one commit did, from Iceberg's commit report.
 *
 * @param table the table committed to
 * @param snapshotId the snapshot the commit created
 * @param sequenceNumber its data sequence number
 * @param operation Iceberg's operation name ({@code append}, {@code overwrite}, {@code replace}, ...)
 * @param duration time from the first attempt to the successful one, including retries
 * @param attempts attempts it took (1 without conflicts; each optimistic retry adds one)
 * @param addedDataFiles data files added
 * @param removedDataFiles data files removed
 * @param totalDataFiles data files in the table after the commit
 * @param addedRows rows added
 * @param removedRows rows removed
 * @param totalRows rows in the table after the commit
 * @param addedBytes bytes of the data files added
 */
public record CommitMetrics(
    TableId table,
    long snapshotId,
    long sequenceNumber,
    String operation,
    Duration duration,
    long attempts,
    long addedDataFiles,
    long removedDataFiles,
    long totalDataFiles,
    long addedRows,
    long removedRows,
    long totalRows,
    long addedBytes) {}
