package dev.featurestore;

/**
 * Whether one data file can hold rows matching a filter, and why.
 *
 * @param location the data file
 * @param specId the partition spec the file was written with
 * @param partitionPath the file's partition as a path ({@code event_time_day=2026-01-01}); empty if unpartitioned
 * @param recordCount rows in the file
 * @param sizeInBytes bytes of the file
 * @param outcome kept or dropped, and by what
 * @param reason the partition predicate or column bounds that decided, in words
 */
public record FileDecision(
    String location,
    int specId,
    String partitionPath,
    long recordCount,
    long sizeInBytes,
    Outcome outcome,
    String reason) {

  /** What decided. */
  public enum Outcome {
    /** The file may hold matching rows: a scan reads it. */
    KEPT,
    /** The filter projected onto the file's partition spec excludes the file's partition values. */
    DROPPED_BY_PARTITION,
    /** The file's column statistics (lower/upper bounds, null and NaN counts) exclude every row. */
    DROPPED_BY_COLUMN_STATS
  }

  public boolean kept() {
    return outcome == Outcome.KEPT;
  }
}
