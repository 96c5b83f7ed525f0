package dev.featurestore;

import java.time.Duration;

/**
 * A pending orphan-file removal: files under the table's location that no known snapshot or
 * metadata file references (data, delete, manifest, manifest-list, metadata and statistics files)
 * and that are older than a safety window.
 *
 * <p>With cold storage, the table's prefix in the cold bucket is listed too: a cold object is a
 * candidate only if no snapshot names its cold location nor the hot location it was moved from
 * (an older snapshot naming the hot path reads the cold copy). Its candidate location is the cold
 * ({@code s3://}) location.
 *
 * <p>The safety window (default {@link #DEFAULT_SAFETY_WINDOW}) is what protects in-flight
 * writes: a writer writes its files first and commits them after, so a file that is young may be
 * about to be referenced. A window below {@link #MINIMUM_SAFETY_WINDOW} needs {@link
 * #unsafe()}, and is only safe when no writer runs.
 *
 * <pre>{@code
 * OrphanFilesResult report = table.maintenance().removeOrphanFiles().dryRun();
 * report.candidates().forEach(f -> System.out.println(f.location() + " " + f.sizeBytes()));
 * table.maintenance().removeOrphanFiles().execute();
 * }</pre>
 *
 * <p>Single-use: a second {@code dryRun()} or {@code execute()} throws {@link
 * InvalidStateException} ({@code Cannot execute orphan file removal of table <id>: already
 * executed}); so does either on a store whose FileIO cannot list files ({@code Cannot remove
 * orphan files: the FileIO cannot list files: <class>}).
 */
public interface OrphanFileRemoval {
  Duration DEFAULT_SAFETY_WINDOW = Duration.ofHours(3);
  Duration MINIMUM_SAFETY_WINDOW = Duration.ofMinutes(1);

  /**
   * Only files last modified more than {@code window} ago are candidates.
   *
   * @throws InvalidArgumentException if negative, or below {@link #MINIMUM_SAFETY_WINDOW} without
   *     {@link #unsafe()} (checked on {@code dryRun()}/{@code execute()})
   */
  OrphanFileRemoval olderThan(Duration window);

  /** Allows a safety window below the minimum; only safe when no writer is running. */
  OrphanFileRemoval unsafe();

  /** Lists the orphan files without deleting anything. */
  OrphanFilesResult dryRun();

  /** Deletes the orphan files and reports them. */
  OrphanFilesResult execute();
}
