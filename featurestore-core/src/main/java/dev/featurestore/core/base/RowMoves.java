package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;

/**
 * Internal: where a compaction moved the rows of the files it rewrote, as (old file, old position)
 * to (new file, new position). The compaction reads its input files one after the other, each in
 * file order, skips the rows deleted in its start snapshot and writes the rest, in that order, into
 * its new files one after the other; so the mapping is a few numbers per old file: the positions
 * deleted at the start (sorted) and the ordinal its first row got in the output. Used to carry the
 * deletes committed during the rewrite over to the new files, and by the CDC writer to move its
 * key index instead of re-reading the new files.
 *
 * <p>Immutable once {@link #committedAs} was called; safe to share between threads after that.
 */
public final class RowMoves {
  private final Map<String, Source> sources = new HashMap<>();
  private final List<DataFile> targets = new ArrayList<>();
  private long[] targetStarts = new long[0];
  private long rows;
  private long snapshotId = -1;

  /** One rewritten data file: its rows deleted at the start, and the output ordinal of its first kept row. */
  public static final class Source {
    private final String location;
    private final long[] deleted;
    private final long first;
    private final long recordCount;

    Source(String location, long[] deleted, long first, long recordCount) {
      this.location = location;
      this.deleted = deleted;
      this.first = first;
      this.recordCount = recordCount;
    }

    public String location() {
      return location;
    }

    /** The rows of the old file that were copied. */
    public long copied() {
      return recordCount - deleted.length;
    }

    /** Whether row {@code position} was deleted at the start (so not copied). */
    public boolean deletedAtStart(long position) {
      return Arrays.binarySearch(deleted, position) >= 0;
    }

    /** The output ordinal of row {@code position}, or -1 if the row was deleted at the start (or is out of range). */
    public long ordinal(long position) {
      if (position < 0 || position >= recordCount) {
        return -1;
      }
      int at = Arrays.binarySearch(deleted, position);
      if (at >= 0) {
        return -1;
      }
      return first + position - (-at - 1); // -at - 1: deleted positions below this one
    }
  }

  /**
   * Records that the next {@code recordCount - deleted.length} output rows are the rows of
   * {@code location} not in {@code deleted}, in file order.
   *
   * @param deleted the positions deleted at the start, any order; not kept by reference
   */
  public void copied(String location, long[] deleted, long recordCount) {
    requireNonNull(location, "location is null");
    long[] sorted = deleted.clone();
    Arrays.sort(sorted);
    Source source = new Source(location, sorted, rows, recordCount);
    if (sources.putIfAbsent(location, source) != null) {
      throw new IllegalArgumentException("Cannot record row moves: file copied twice: " + location);
    }
    rows += source.copied();
  }

  /** Sets the files the output rows went to, in write order; their record counts must add up to the rows copied. */
  public void writtenTo(List<DataFile> files) {
    long total = 0;
    long[] starts = new long[files.size()];
    for (int i = 0; i < files.size(); i++) {
      starts[i] = total;
      total += files.get(i).recordCount();
    }
    if (total != rows) {
      throw new IllegalStateException("Cannot record row moves: " + rows + " rows copied but " + total + " written");
    }
    targets.clear();
    targets.addAll(files);
    targetStarts = starts;
  }

  /** The compaction committed as {@code snapshot}. */
  public RowMoves committedAs(long snapshot) {
    this.snapshotId = snapshot;
    return this;
  }

  /** The compaction's snapshot, -1 before it committed. */
  public long snapshotId() {
    return snapshotId;
  }

  /** The rewritten file at {@code location}, or null. */
  public Source source(String location) {
    return sources.get(location);
  }

  public Map<String, Source> sources() {
    return Collections.unmodifiableMap(sources);
  }

  /** The new files, in write order. */
  public List<DataFile> targets() {
    return Collections.unmodifiableList(targets);
  }

  /** The index in {@link #targets()} of the file holding output {@code ordinal}. */
  public int target(long ordinal) {
    int at = Arrays.binarySearch(targetStarts, ordinal);
    return at >= 0 ? skipEmpty(at) : -at - 2;
  }

  /** Several files may start at one ordinal when some are empty: the row is in the last of them. */
  private int skipEmpty(int at) {
    int i = at;
    while (i + 1 < targetStarts.length && targetStarts[i + 1] == targetStarts[at]) {
      i++;
    }
    return i;
  }

  /** The position of output {@code ordinal} in its file {@code target}. */
  public long position(int target, long ordinal) {
    return ordinal - targetStarts[target];
  }

  /** Rows copied in all. */
  public long rows() {
    return rows;
  }
}
