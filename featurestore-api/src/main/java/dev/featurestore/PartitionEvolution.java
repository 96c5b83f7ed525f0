package dev.featurestore;

import org.apache.iceberg.PartitionSpec;

/**
 * A change of a table's partition spec. Files already written keep the spec they were written
 * with (queries prune them by their own spec); new files use the new spec. Each step is checked
 * as in {@link PartitionSpecBuilder} (unknown column, transform not valid for the type, duplicate
 * name). Preview with {@link #apply()}, land with {@link #commit()}; single-use.
 *
 * <pre>{@code
 * table.evolvePartitionSpec().bucket("entity_id", 16).removeField("event_time_month").day("event_time").commit();
 * }</pre>
 */
public interface PartitionEvolution {
  PartitionEvolution identity(String column);

  PartitionEvolution year(String column);

  PartitionEvolution month(String column);

  PartitionEvolution day(String column);

  PartitionEvolution hour(String column);

  PartitionEvolution bucket(String column, int buckets);

  PartitionEvolution truncate(String column, int width);

  /**
   * Removes a partition field by name.
   *
   * @throws IllegalArgumentException if the current spec has no field of that name
   */
  PartitionEvolution removeField(String name);

  /** Renames a partition field. */
  PartitionEvolution renameField(String name, String newName);

  /** The spec this change would produce, without committing. */
  PartitionSpec apply();

  /**
   * Commits the new spec and returns it.
   *
   * @throws ValidationException if the change is not valid against the table's current spec
   * @throws CommitConflictException if the commit lost every optimistic retry
   * @throws InvalidStateException if no change was given or already committed ({@code Cannot commit
   *     partition spec change of table <id>: already committed})
   */
  PartitionSpec commit();
}
