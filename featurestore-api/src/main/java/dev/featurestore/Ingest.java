package dev.featurestore;

import java.nio.file.Path;
import java.util.Map;

/**
 * One ingest into a table: exactly one source, options, then {@link #commit()} (or {@link #apply()}
 * to preview). A change like a schema evolution: it makes one snapshot. The whole
 * ingest lands as one atomic commit (one snapshot); if anything fails, nothing is committed, the
 * files written so far are deleted, and the table stays exactly as it was.
 *
 * <p>Sources stream: files larger than the heap ingest in bounded memory.
 *
 * <pre>{@code
 * IngestResult result = table.ingest()
 *     .csv(Path.of("events.csv"))
 *     .autoEvolveSchema(true)
 *     .listener(p -> System.out.println(p.rows() + " rows"), 1_000_000)
 *     .commit();
 * }</pre>
 *
 * <p>Values are converted to the column types: numbers widen (an {@code int} into a {@code long}
 * column), strings parse for numbers, booleans, dates, times, timestamps (ISO-8601), decimals and
 * UUIDs; {@code java.time} values convert between timestamp kinds. A value that does not fit fails
 * with {@link InvalidDataException} naming the row, the column and the value. Unknown columns fail
 * too, unless {@link #autoEvolveSchema(boolean)} is on. A pending ingest is single-use: a second
 * {@code commit()} throws {@link InvalidStateException} ({@code Cannot commit ingest: already committed}).
 */
public interface Ingest {
  /** Rows as column-name to value maps. */
  Ingest rows(Iterable<? extends Map<String, ?>> rows);

  /** Java records or beans, read by property name (record components or getters). */
  Ingest objects(Iterable<?> objects);

  /** {@code rows} generated rows, reproducible for a given {@code seed}. */
  Ingest synthetic(long rows, long seed);

  /** A CSV file with a header line; empty fields are nulls. */
  Ingest csv(Path file);

  /** A JSON file: either JSON lines (one object a line) or one array of objects. */
  Ingest json(Path file);

  /** A Parquet file; columns are matched by name. */
  Ingest parquet(Path file);

  /**
   * A CSV object in the store's bucket, streamed (typically staged under {@code raw/} with
   * {@link ObjectBrowser#stage(String)}); the key is relative to the store's key prefix.
   *
   * @throws ValidationException at commit if the store is not on object storage
   * @throws NotFoundException at commit if there is no such object
   */
  Ingest csvObject(String key);

  /** A JSON object (lines or one array) in the store's bucket, streamed; see {@link #csvObject(String)}. */
  Ingest jsonObject(String key);

  /** A Parquet object in the store's bucket, read through the store's FileIO; see {@link #csvObject(String)}. */
  Ingest parquetObject(String key);

  /**
   * When on, columns present in the input but not in the table are added (nullable, type
   * inferred from the input) in the same commit as the data. Off by default: unknown columns fail.
   */
  Ingest autoEvolveSchema(boolean enabled);

  /** Calls {@code listener} about every {@code everyRows} rows and once at the end, on the committing thread. */
  Ingest listener(IngestListener listener, long everyRows);

  /**
   * Calls {@code listener} about every {@code everyRows} rows and once at the end.
   *
   * @deprecated use {@link #listener(IngestListener, long)}; {@code onProgress} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default Ingest onProgress(IngestListener listener, long everyRows) {
    return listener(listener, everyRows);
  }

  /** Adds a property to the snapshot summary of this ingest's commit. */
  Ingest snapshotProperty(String key, String value);

  /**
   * Commits to an existing branch instead of {@code main} (write-audit-publish: ingest to a
   * branch, inspect it with {@code query().atRef(branch)}, then publish with {@link
   * SnapshotManager#publish(String)}). The commit fails with {@link NotFoundException} if the
   * branch does not exist and {@link ValidationException} if the name is a tag.
   */
  Ingest toBranch(String branch);

  /**
   * Previews the ingest without committing: reads and converts the source and reports how many rows
   * would land and which new columns. Single-use like {@link #commit()}.
   */
  IngestResult apply();

  /**
   * Checks the source without committing.
   *
   * @deprecated use {@link #apply()}; {@code dryRun()} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default IngestResult dryRun() {
    return apply();
  }

  /**
   * Writes the data files and commits them as one snapshot.
   *
   * @throws InvalidDataException if a row or line cannot be ingested (nothing committed)
   * @throws CommitConflictException if the commit lost every optimistic retry (nothing committed)
   * @throws CommitStateUnknownException if the outcome of the commit is unknown
   * @throws StorageException if reading the source or writing the files failed
   * @throws InvalidStateException if no source was set or this ingest was already committed
   */
  IngestResult commit();
}
