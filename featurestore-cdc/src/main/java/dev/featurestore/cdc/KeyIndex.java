package dev.featurestore.cdc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import dev.featurestore.core.base.RowMoves;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;

/**
 * Where each document's row is in a merge-on-read current state: (collection, doc id) to (data
 * file, row position), plus each live data file's current delete files (what {@code
 * PositionDeletes} merges the next deletion vector with). A cache of the table at one snapshot
 * ({@link #snapshotId()}), never a second source of truth: {@link KeyIndexSync} builds it from
 * the table and catches it up after foreign commits; the writer's own commits update it in place.
 *
 * <p>Memory: an open-addressing table (linear probing, backward-shift deletion) of three longs
 * per slot: the key's 128-bit murmur3 hash (two longs) and the packed (file ordinal + 1, row
 * position) ({@value #POSITION_BITS} bits of position, the rest the file). At most 75% full: about
 * 32-48 bytes per document (10M documents: 402 MB). Two different keys share a hash with
 * probability about n^2 / 2^129 (10M documents: 1.5e-25); such a pair would make an update of one
 * delete the other's row.
 *
 * <p>An entry may point at a position that is already deleted (another shard deleted the
 * document): marking it again is harmless, positions are never reused. An entry pointing at a
 * data file that is gone (compacted, rewritten) reads as absent. Entries of documents deleted by
 * other writers stay until the next rebuild. Not thread-safe: used by one writer thread.
 */
final class KeyIndex {
  static final int POSITION_BITS = 40;
  private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
  /** File ordinals fit the remaining 23 bits (value 0 marks an empty slot, so ordinal + 1 is stored). */
  static final int MAX_FILES = (1 << (63 - POSITION_BITS)) - 2;

  /** A key's 128-bit hash. */
  record Key(long hi, long lo) {}

  /** Where a document's row is. */
  record Location(DataFile file, long position) {}

  /** A data file the index knows; {@code file} is null once the file left the table. */
  static final class FileState {
    DataFile file;
    final List<DeleteFile> deletes = new ArrayList<>(1);

    FileState(DataFile file) {
      this.file = file;
    }
  }

  private long[] his;
  private long[] los;
  private long[] values;
  private int size;
  private final List<FileState> files = new ArrayList<>();
  private final Map<String, Integer> ordinals = new HashMap<>();
  private long snapshotId = -1;
  private boolean valid;

  KeyIndex() {
    reset(16, -1);
    valid = false;
  }

  static Key key(String collection, String docId) {
    byte[] hash = Hashing.murmur3_128().newHasher()
        .putInt(collection.length()).putString(collection, StandardCharsets.UTF_8)
        .putString(docId, StandardCharsets.UTF_8).hash().asBytes();
    ByteBuffer b = ByteBuffer.wrap(hash).order(ByteOrder.LITTLE_ENDIAN);
    return new Key(b.getLong(), b.getLong());
  }

  /** Empties the index for a table at {@code snapshot} (-1: no snapshot), sized for {@code expected} keys. */
  void reset(long expected, long snapshot) {
    int capacity = 16;
    while (capacity * 3L / 4 < expected) {
      capacity <<= 1;
    }
    his = new long[capacity];
    los = new long[capacity];
    values = new long[capacity];
    size = 0;
    files.clear();
    ordinals.clear();
    snapshotId = snapshot;
    valid = true;
  }

  /** The snapshot the index describes; meaningful only while {@link #isValid()}. */
  long snapshotId() {
    return snapshotId;
  }

  boolean isValid() {
    return valid;
  }

  /** The index no longer describes a known snapshot (an unknown commit outcome): rebuilt or caught up before its next use. */
  void invalidate() {
    valid = false;
  }

  void at(long snapshot) {
    this.snapshotId = snapshot;
    this.valid = true;
  }

  int size() {
    return size;
  }

  // ---- files

  /** Registers a data file new to the index; returns its ordinal. */
  int addFile(DataFile file) {
    Integer known = ordinals.get(file.location());
    if (known != null) {
      FileState state = files.get(known);
      if (state.file == null) {
        state.file = file;
      }
      return known;
    }
    if (files.size() >= MAX_FILES) {
      throw new IllegalStateException("key index full: " + files.size() + " files");
    }
    files.add(new FileState(file));
    ordinals.put(file.location(), files.size() - 1);
    return files.size() - 1;
  }

  /** Data files the index has given ordinals to (also those that left the table). */
  int fileCount() {
    return files.size();
  }

  boolean full() {
    return files.size() >= MAX_FILES;
  }

  /** The file left the table: entries pointing at it read as absent from now on. */
  void removeFile(String location) {
    Integer ordinal = ordinals.remove(location);
    if (ordinal != null) {
      FileState state = files.get(ordinal);
      state.file = null;
      state.deletes.clear();
    }
  }

  /** The state of a live data file, or null. */
  FileState file(String location) {
    Integer ordinal = ordinals.get(location);
    return ordinal == null ? null : files.get(ordinal);
  }

  /** The delete files that apply to a live data file at the index's snapshot. */
  List<DeleteFile> deletesOf(String location) {
    FileState state = file(location);
    return state == null ? List.of() : List.copyOf(state.deletes);
  }

  void addDelete(String dataFile, DeleteFile delete) {
    FileState state = file(dataFile);
    if (state != null) {
      state.deletes.add(delete);
    }
  }

  void removeDelete(String dataFile, DeleteFile delete) {
    FileState state = file(dataFile);
    if (state != null) {
      state.deletes.removeIf(d -> d.location().equals(delete.location())
          && Objects.equals(d.contentOffset(), delete.contentOffset()));
    }
  }

  /**
   * A compaction moved the rows of some of the index's live files ({@code moves}' sources) into
   * its new files: every entry pointing at a moved row points at its new place, entries of rows the
   * compaction did not copy (deleted when it started) are dropped. One pass over the table, nothing
   * read. The caller then removes the old files and adds the new files' delete files.
   *
   * @param newFiles the new files as the table lists them, by location (else the compaction's own)
   * @throws IllegalStateException if the new files do not fit the index (it is full): rebuild
   */
  void move(RowMoves moves, Map<String, DataFile> newFiles) {
    RowMoves.Source[] byOrdinal = new RowMoves.Source[files.size()];
    for (RowMoves.Source source : moves.sources().values()) {
      Integer ordinal = ordinals.get(source.location());
      if (ordinal != null) {
        byOrdinal[ordinal] = source;
      }
    }
    List<DataFile> targets = moves.targets();
    int[] targetOrdinals = new int[targets.size()];
    for (int i = 0; i < targets.size(); i++) {
      targetOrdinals[i] = addFile(newFiles.getOrDefault(targets.get(i).location(), targets.get(i)));
    }
    List<Key> gone = new ArrayList<>();
    for (int slot = 0; slot < values.length; slot++) {
      long value = values[slot];
      if (value == 0) {
        continue;
      }
      int ordinal = (int) (value >>> POSITION_BITS) - 1;
      RowMoves.Source source = ordinal < byOrdinal.length ? byOrdinal[ordinal] : null;
      if (source == null) {
        continue;
      }
      long moved = source.ordinal(value & POSITION_MASK);
      if (moved < 0) {
        gone.add(new Key(his[slot], los[slot]));
      } else {
        int target = moves.target(moved);
        values[slot] = ((long) (targetOrdinals[target] + 1) << POSITION_BITS) | moves.position(target, moved);
      }
    }
    gone.forEach(this::remove);
  }

  // ---- keys

  /** Where the document's row is, if the index has it in a live file. */
  Location find(Key key) {
    int slot = slot(key);
    if (values[slot] == 0) {
      return null;
    }
    long value = values[slot];
    FileState state = files.get((int) (value >>> POSITION_BITS) - 1);
    return state.file == null ? null : new Location(state.file, value & POSITION_MASK);
  }

  void put(Key key, int fileOrdinal, long position) {
    if (position > POSITION_MASK) {
      throw new IllegalArgumentException("position beyond the key index: " + position);
    }
    int slot = slot(key);
    if (values[slot] == 0) {
      his[slot] = key.hi();
      los[slot] = key.lo();
      size++;
    }
    values[slot] = ((long) (fileOrdinal + 1) << POSITION_BITS) | position;
    if (size > values.length * 3L / 4) {
      grow();
    }
  }

  void remove(Key key) {
    int slot = slot(key);
    if (values[slot] == 0) {
      return;
    }
    size--;
    int mask = values.length - 1;
    int hole = slot;
    for (int i = (hole + 1) & mask; values[i] != 0; i = (i + 1) & mask) {
      int home = (int) los[i] & mask;
      // move i into the hole if its home is not cyclically within (hole, i]
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        his[hole] = his[i];
        los[hole] = los[i];
        values[hole] = values[i];
        hole = i;
      }
    }
    values[hole] = 0;
  }

  /** The slot holding {@code key}, or the empty slot where it would go. */
  private int slot(Key key) {
    int mask = values.length - 1;
    int i = (int) key.lo() & mask;
    while (values[i] != 0 && (his[i] != key.hi() || los[i] != key.lo())) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void grow() {
    long[] oldHis = his;
    long[] oldLos = los;
    long[] oldValues = values;
    int capacity = oldValues.length << 1;
    his = new long[capacity];
    los = new long[capacity];
    values = new long[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldValues.length; j++) {
      if (oldValues[j] != 0) {
        int i = (int) oldLos[j] & mask;
        while (values[i] != 0) {
          i = (i + 1) & mask;
        }
        his[i] = oldHis[j];
        los[i] = oldLos[j];
        values[i] = oldValues[j];
      }
    }
  }
}
