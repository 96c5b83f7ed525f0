package dev.featurestore;

/**
 * One committed batch of a {@link Tiering} run.
 *
 * @param batch the batch, from 1
 * @param batches batches planned
 * @param snapshotId the commit that swapped the batch
 * @param files files moved by this batch
 * @param bytes bytes moved by this batch
 */
public record TieringProgress(int batch, int batches, long snapshotId, long files, long bytes) {}
