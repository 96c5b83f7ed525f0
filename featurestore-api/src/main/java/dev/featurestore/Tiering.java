package dev.featurestore;

import java.time.Duration;

/**
 * A pending hot/cold tiering action: moves the data files of the current snapshot that are older than
 * a threshold from the hot location (the store's warehouse: local disk or a fast bucket) to the
 * cold one ({@link FeatureStoreConfig.Builder#coldStorage(ObjectStorage)}), in atomic commits.
 *
 * <p>A file's age is the commit time of the snapshot that added it (its data sequence number);
 * when that snapshot has been expired, the earliest later snapshot's time is used, which never
 * makes a file look older than it is. Each file is copied to the cold bucket at the same path
 * relative to the warehouse, its size is verified, and then a batch of files is swapped in one
 * Iceberg {@code RewriteFiles} commit that keeps partition values, metrics, record counts and data
 * sequence numbers (so equality deletes still apply). The hot copy is deleted only after its commit
 * succeeded; older snapshots that still name the hot path are read from the cold copy. Files that
 * position deletes or deletion vectors point at are skipped ("compact first").
 *
 * <p>Failure behaviour: a copy or commit failure deletes the cold copies of that batch and leaves
 * the table as it was (batches committed earlier stay committed). An unknown commit outcome is
 * resolved by reading the table, never by retrying blindly. A crash between a commit and the hot
 * delete leaves hot leftovers that the next execution deletes.
 *
 * <pre>{@code
 * TieringResult moved = table.tiering().olderThan(Duration.ofDays(30)).filesPerCommit(50).execute();
 * TieringStatus status = table.tiering().status();   // hot/cold files and bytes, cache stats
 * }</pre>
 *
 * <p>An action, like the other maintenance actions: preview with {@link #dryRun()}, act with {@link
 * #execute()}. Single-use: a second {@code dryRun()} or {@code execute()} throws {@link
 * InvalidStateException} ({@code Cannot execute tiering of table <id>: already executed}).
 */
public interface Tiering {
  /** Default number of files swapped per commit. */
  int DEFAULT_FILES_PER_COMMIT = 50;

  /**
   * Moves files committed more than {@code age} ago (required before {@code execute()}/{@code dryRun()}).
   *
   * @throws InvalidArgumentException if negative
   */
  Tiering olderThan(Duration age);

  /**
   * At most this many files per commit (default {@value #DEFAULT_FILES_PER_COMMIT}). Files added by
   * different commits go in different tiering commits, since a rewrite keeps one data sequence
   * number per commit.
   *
   * @throws InvalidArgumentException if below 1
   */
  Tiering filesPerCommit(int files);

  /** Receives one progress report per committed batch, on the thread that calls {@link #execute()}. */
  Tiering listener(TieringListener listener);

  /** Reports what {@link #execute()} would move and skip, without copying or committing anything. */
  TieringResult dryRun();

  /**
   * Moves the files and commits.
   *
   * @throws ValidationException if the store has no cold storage, or {@link #olderThan} was not set
   * @throws StorageException if a copy fails; that batch's cold copies are deleted
   * @throws CommitConflictException if a concurrent commit conflicts with a batch
   * @throws CommitStateUnknownException if a commit outcome could not be resolved by reading the table
   * @throws InvalidStateException if this tiering was already executed or dry-run
   */
  TieringResult execute();

  /**
   * Moves the files and commits.
   *
   * @deprecated use {@link #execute()}; {@code run()} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default TieringResult run() {
    return execute();
  }

  /**
   * Hot and cold data files and bytes of the current snapshot, and the cold cache's statistics.
   *
   * @throws ValidationException if the store has no cold storage
   */
  TieringStatus status();
}
