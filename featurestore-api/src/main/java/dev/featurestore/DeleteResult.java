package dev.featurestore;

import java.util.List;
import java.util.OptionalLong;

/**
 * What a row-level delete did, or (from {@link RowDeletion#dryRun()}) would do.
 *
 * @param snapshotId the commit it made; empty for a dry run and when no row matched
 * @param dryRun whether this is a preview (nothing was written)
 * @param rowsDeleted live rows deleted (rows already deleted are not counted again)
 * @param dataFilesScanned data files read to find the rows (files pruned by partition, column
 *     statistics or bloom filters are not read)
 * @param dataFilesTouched data files that had rows deleted (including those removed whole)
 * @param dataFilesRemoved data files removed from the snapshot because every live row matched
 * @param deleteFilesWritten deletion vectors (format 3) or position-delete files (format 2) written
 * @param deleteFilesReplaced earlier delete files of the same data files, merged into the new ones
 *     or dropped with a removed data file, and removed in the same commit
 * @param files per touched data file, how many rows and whether the whole file goes
 */
public record DeleteResult(
    OptionalLong snapshotId,
    boolean dryRun,
    long rowsDeleted,
    long dataFilesScanned,
    long dataFilesTouched,
    long dataFilesRemoved,
    long deleteFilesWritten,
    long deleteFilesReplaced,
    List<FileDeletion> files) {
  public DeleteResult {
    files = List.copyOf(files);
  }

  /** The rows deleted from one data file. */
  public record FileDeletion(String dataFile, long rowsDeleted, boolean wholeFile) {}
}
