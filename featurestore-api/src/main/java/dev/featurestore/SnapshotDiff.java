package dev.featurestore;

import java.util.List;

/**
 * What changed between two snapshots.
 *
 * <p>Row counts come from the snapshot summaries along the ancestry from the two snapshots'
 * common ancestor: rows added counts appended rows, rows removed counts rows of removed data
 * files and position-delete rows. Equality deletes are not counted (their matching rows are only
 * known by reading the data).
 *
 * @param fromSnapshotId the older side
 * @param toSnapshotId the newer side
 * @param addedRows rows added going from {@code from} to {@code to}
 * @param removedRows rows removed going from {@code from} to {@code to}
 * @param addedDataFiles data files live in {@code to} but not in {@code from}, sorted
 * @param removedDataFiles data files live in {@code from} but not in {@code to}, sorted
 * @param schemaChanges column changes between the two snapshots' schemas, by field id
 */
public record SnapshotDiff(
    long fromSnapshotId,
    long toSnapshotId,
    long addedRows,
    long removedRows,
    List<String> addedDataFiles,
    List<String> removedDataFiles,
    List<ColumnChange> schemaChanges) {
  public SnapshotDiff {
    addedDataFiles = List.copyOf(addedDataFiles);
    removedDataFiles = List.copyOf(removedDataFiles);
    schemaChanges = List.copyOf(schemaChanges);
  }

  /**
   * One column change, matched by field id.
   *
   * @param kind what changed
   * @param fieldId the column's field id
   * @param fromName its full name before (empty string if added)
   * @param toName its full name after (empty string if removed)
   * @param fromType its type before (empty string if added)
   * @param toType its type after (empty string if removed)
   */
  public record ColumnChange(Kind kind, int fieldId, String fromName, String toName, String fromType, String toType) {
    public enum Kind {
      ADDED,
      REMOVED,
      RENAMED,
      TYPE_CHANGED
    }
  }
}
