package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Internal, shared by the scan reader and point lookups: the row positions that position deletes
 * mark deleted in the data files of one read (deletion vectors on format 3, position-delete files
 * on format 2), as a cursor walked in ascending position order: a step per row instead of a
 * bitmap search per row. Deletion vectors in the same Puffin file are read together: the vectors
 * of all the read's tasks that lie close to each other in one Puffin file are one read (ranges of
 * at most {@value #MAX_RANGE} bytes, gaps under {@value #MAX_GAP} bytes read through), where
 * Iceberg's reader opens the Puffin file once per data file: 110 reads become one or a few after a
 * stream's batches, and on S3 each is a request. A range's bytes are dropped once its last vector
 * was taken. Equality deletes are not handled here: {@link #handles} says whether a task's deletes
 * are all positional. Not thread-safe: one instance per read.
 */
public final class DeletedPositions {
  static final int MAX_RANGE = 8 << 20;
  static final int MAX_GAP = 1 << 20;
  /** Above this many deleted rows in one file the cursor asks the bitmap instead of holding a sorted array. */
  static final long MAX_ARRAY = 1L << 22;

  private final FileIO io;
  private final Map<String, Range> vectors = new HashMap<>(); // "location@offset" of each vector -> its range
  private BaseDeleteLoader loader;

  /** @param tasks every task this read may open (their vectors are grouped into ranges up front; nothing is read yet) */
  public DeletedPositions(FileIO io, Collection<FileScanTask> tasks) {
    this(io, tasks, MAX_RANGE, MAX_GAP);
  }

  /** With other range limits (tests: small vectors grouped as large ones would be). */
  DeletedPositions(FileIO io, Collection<FileScanTask> tasks, int maxRange, int maxGap) {
    this.io = requireNonNull(io, "io is null");
    Map<String, List<DeleteFile>> byPuffin = new HashMap<>();
    for (FileScanTask task : tasks) {
      if (task.deletes().size() == 1 && ContentFileUtil.isDV(task.deletes().get(0))) {
        DeleteFile dv = task.deletes().get(0);
        if (dv.contentOffset() != null && dv.contentSizeInBytes() != null && dv.contentSizeInBytes() <= maxRange) {
          byPuffin.computeIfAbsent(dv.location(), k -> new ArrayList<>()).add(dv);
        }
      }
    }
    for (List<DeleteFile> dvs : byPuffin.values()) {
      dvs.sort(Comparator.comparingLong(DeleteFile::contentOffset));
      Range range = null;
      for (DeleteFile dv : dvs) {
        long start = dv.contentOffset();
        long end = start + dv.contentSizeInBytes();
        if (vectors.containsKey(key(dv))) {
          continue; // two tasks of one data file (a split file): one vector
        }
        if (range == null || start - range.end > maxGap || end - range.start > maxRange) {
          range = new Range(dv.location(), start);
        }
        range.end = Math.max(range.end, end);
        range.remaining++;
        vectors.put(key(dv), range);
      }
    }
  }

  /** Whether every delete file of the task is a position delete (a deletion vector or a position-delete file). */
  public static boolean handles(FileScanTask task) {
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.POSITION_DELETES) {
        return false;
      }
    }
    return true;
  }

  /** The positions deleted in the task's data file ({@link Cursor#NONE} if it has no deletes). */
  public Cursor of(FileScanTask task) {
    List<DeleteFile> deletes = task.deletes();
    if (deletes.isEmpty()) {
      return Cursor.NONE;
    }
    if (!handles(task)) {
      throw new IllegalArgumentException("Cannot load position deletes: equality deletes apply to data file: "
          + task.file().location());
    }
    String path = task.file().location();
    PositionDeleteIndex index;
    Range range = deletes.size() == 1 ? vectors.get(key(deletes.get(0))) : null;
    if (range != null) {
      index = range.vector(io, deletes.get(0), path);
    } else {
      if (loader == null) {
        loader = new BaseDeleteLoader(delete -> io.newInputFile(delete));
      }
      index = loader.loadPositionDeletes(deletes, path);
    }
    return Cursor.of(index);
  }

  private static String key(DeleteFile dv) {
    return dv.location() + "@" + dv.contentOffset();
  }

  /** Vectors lying together in one Puffin file, read at once when the first is needed. */
  private static final class Range {
    final String location;
    final long start;
    long end;
    int remaining; // vectors not yet taken
    byte[] bytes;

    Range(String location, long start) {
      this.location = location;
      this.start = start;
      this.end = start;
    }

    PositionDeleteIndex vector(FileIO io, DeleteFile dv, String dataFile) {
      // the checks Iceberg's loader makes before reading a vector
      if (!dataFile.equals(dv.referencedDataFile())) {
        throw new IllegalArgumentException("Cannot read deletion vector of data file " + dataFile
            + ": it references another data file: " + dv.referencedDataFile());
      }
      if (bytes == null) {
        bytes = new byte[Math.toIntExact(end - start)];
        try {
          IOUtil.readFully(io.newInputFile(location), start, bytes, 0, bytes.length);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read deletion vectors of " + location + ": " + e.getMessage(), e);
        }
      }
      int offset = Math.toIntExact(dv.contentOffset() - start);
      byte[] blob = Arrays.copyOfRange(bytes, offset, offset + dv.contentSizeInBytes().intValue());
      if (--remaining <= 0) {
        bytes = null; // every vector of the range was taken
      }
      return PositionDeleteIndex.deserialize(blob, dv); // checks length, magic, checksum and cardinality
    }
  }

  /**
   * A data file's deleted positions, asked in ascending position order (each position at most
   * once, or again for the same answer): a walk over a sorted array, or the bitmap itself for files
   * with very many deleted rows.
   */
  public abstract static class Cursor {
    /** No row deleted. */
    public static final Cursor NONE = new Cursor() {
      @Override
      public boolean isDeleted(long position) {
        return false;
      }

      @Override
      public long count() {
        return 0;
      }
    };

    private Cursor() {}

    static Cursor of(PositionDeleteIndex index) {
      if (index == null || index.isEmpty()) {
        return NONE;
      }
      long cardinality = index.cardinality();
      if (cardinality > MAX_ARRAY) {
        return new Cursor() {
          @Override
          public boolean isDeleted(long position) {
            return index.isDeleted(position);
          }

          @Override
          public long count() {
            return cardinality;
          }
        };
      }
      long[] positions = new long[(int) cardinality];
      int[] n = {0};
      index.forEach(position -> {
        if (n[0] == positions.length) {
          throw new IllegalStateException("deletion index holds more positions than its cardinality " + cardinality);
        }
        positions[n[0]++] = position;
      });
      long[] sorted = n[0] == positions.length ? positions : Arrays.copyOf(positions, n[0]);
      Arrays.sort(sorted); // ascending already from a bitmap; not promised by the interface
      return new Sorted(sorted);
    }

    /** Whether the row at {@code position} is deleted; positions must not decrease between calls. */
    public abstract boolean isDeleted(long position);

    /** How many rows are deleted. */
    public abstract long count();
  }

  private static final class Sorted extends Cursor {
    private final long[] positions;
    private int next;

    Sorted(long[] positions) {
      this.positions = positions;
    }

    @Override
    public boolean isDeleted(long position) {
      while (next < positions.length && positions[next] < position) {
        next++;
      }
      return next < positions.length && positions[next] == position;
    }

    @Override
    public long count() {
      return positions.length;
    }
  }
}
