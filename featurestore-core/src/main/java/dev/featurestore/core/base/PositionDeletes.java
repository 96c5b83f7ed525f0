package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import dev.featurestore.core.storage.ForwardingFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Internal, shared by the table delete API and the CDC current state: marks rows of data files
 * deleted by position, never by equality. On a format-3 table the positions become deletion
 * vectors (one Puffin file per call of {@link #finish()}, one vector per data file); on format 2
 * they become one file-scoped position-delete file per data file. Either way the positions a data
 * file already had deleted in the base snapshot (its deletion vector, or its file-scoped
 * position-delete files) are merged into the new file and the old one is replaced in the same
 * commit, so a data file carries at most one such delete file however often its rows change.
 *
 * <pre>{@code
 * PositionDeletes deletes = new PositionDeletes(table, previous, table.io());
 * deletes.delete(dataFile, 17);
 * PositionDeletes.Written written = deletes.finish();
 * RowDelta delta = table.newRowDelta().validateFromSnapshot(base);
 * written.addTo(delta);        // adds the new files, removes the replaced ones, validates the data files still exist
 * delta.commit();              // on failure: written.delete(io)
 * }</pre>
 *
 * Not thread-safe: one instance per batch, on one thread.
 */
public final class PositionDeletes {
  private static final AtomicLong TASKS = new AtomicLong();

  private final Table table;
  private final Function<String, List<DeleteFile>> previous;
  private final FileIO io;
  private final Map<String, Target> targets = new LinkedHashMap<>();

  /**
   * @param previous for a data file's location, the delete files that apply to it in the base
   *     snapshot (as planning reports them in {@code FileScanTask.deletes()}); equality deletes
   *     among them are ignored
   * @param io where the new delete files are written (a recording wrapper of the table's FileIO,
   *     for crash cleanup); reads go through the table's FileIO
   */
  public PositionDeletes(Table table, Function<String, List<DeleteFile>> previous, FileIO io) {
    this.table = requireNonNull(table, "table is null");
    this.previous = requireNonNull(previous, "previous is null");
    this.io = requireNonNull(io, "io is null");
  }

  /** Whether this table gets deletion vectors (format 3 and above) rather than position-delete files. */
  public static boolean usesDeletionVectors(Table table) {
    return TableUtil.formatVersion(table) >= 3;
  }

  /** Marks row {@code position} (0-based, in file order) of {@code file} deleted. */
  public void delete(DataFile file, long position) {
    if (position < 0 || position >= file.recordCount()) {
      throw new IllegalArgumentException("position " + position + " is outside " + file.location()
          + " (" + file.recordCount() + " rows)");
    }
    targets.computeIfAbsent(file.location(), k -> new Target(file)).positions.add(position);
  }

  /** Whether no row was marked. */
  public boolean isEmpty() {
    return targets.isEmpty();
  }

  /** How many rows were marked (a position marked twice counts once per call). */
  public long marked() {
    long n = 0;
    for (Target target : targets.values()) {
      n += target.positions.size();
    }
    return n;
  }

  /**
   * Writes the delete files. Nothing is committed; on any failure the files written so far are
   * deleted before the exception propagates.
   */
  public Written finish() {
    if (targets.isEmpty()) {
      return new Written(List.of(), List.of(), List.of());
    }
    Recording recording = new Recording(io);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 0, TASKS.incrementAndGet())
        .format(usesDeletionVectors(table) ? FileFormat.PUFFIN : FileFormat.PARQUET)
        .ioSupplier(() -> recording)
        .build();
    BaseDeleteLoader loader = new BaseDeleteLoader(delete -> table.io().newInputFile(delete));
    try {
      return usesDeletionVectors(table) ? writeVectors(files, loader) : writePositionFiles(files, loader);
    } catch (IOException e) {
      recording.deleteCreated();
      throw new UncheckedIOException("Cannot write position deletes of table " + table.name() + ": " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      recording.deleteCreated();
      throw e;
    }
  }

  private Written writeVectors(OutputFileFactory files, BaseDeleteLoader loader) throws IOException {
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> previousPositions(loader, path));
    try (BaseDVFileWriter w = writer) {
      for (Target target : targets.values()) {
        DataFile file = target.file;
        for (long position : target.positions) {
          w.delete(file.location(), position, table.specs().get(file.specId()), file.partition());
        }
      }
    }
    DeleteWriteResult result = writer.result();
    List<String> referenced = new ArrayList<>(targets.keySet());
    return new Written(result.deleteFiles(), result.rewrittenDeleteFiles(), referenced);
  }

  private Written writePositionFiles(OutputFileFactory files, BaseDeleteLoader loader) throws IOException {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
        .deleteFileFormat(FileFormat.PARQUET)
        .build();
    List<DeleteFile> added = new ArrayList<>();
    List<DeleteFile> replaced = new ArrayList<>();
    for (Target target : targets.values()) {
      DataFile file = target.file;
      PositionDeleteIndex merged = previousPositions(loader, file.location());
      List<DeleteFile> replacedHere = new ArrayList<>();
      if (merged == null) {
        merged = PositionDeleteIndex.empty();
      } else {
        merged.deleteFiles().stream().filter(ContentFileUtil::isFileScoped).forEach(replacedHere::add);
      }
      TreeSet<Long> positions = new TreeSet<>(target.positions);
      merged.forEach(positions::add);
      PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(
          files.newOutputFile(table.specs().get(file.specId()), file.partition()),
          table.specs().get(file.specId()), file.partition());
      try (PositionDeleteWriter<Record> w = writer) {
        PositionDelete<Record> row = PositionDelete.create();
        for (long position : positions) {
          w.write(row.set(file.location(), position));
        }
      }
      added.add(writer.toDeleteFile());
      replaced.addAll(replacedHere);
    }
    return new Written(added, replaced, new ArrayList<>(targets.keySet()));
  }

  /** The positions already deleted in the base snapshot, with the delete files they came from; null if none. */
  private PositionDeleteIndex previousPositions(BaseDeleteLoader loader, String path) {
    List<DeleteFile> positional = new ArrayList<>();
    for (DeleteFile delete : previous.apply(path)) {
      if (delete.content() == FileContent.POSITION_DELETES) {
        positional.add(delete);
      }
    }
    if (positional.isEmpty()) {
      return null;
    }
    PositionDeleteIndex index = loader.loadPositionDeletes(positional, path);
    return index.isEmpty() && index.deleteFiles().isEmpty() ? null : index;
  }

  private static void deleteQuietly(FileIO io, String location) {
    try {
      io.deleteFile(location);
    } catch (RuntimeException ignored) {
      // an orphan at worst: invisible to readers, removed by orphan-file cleanup
    }
  }

  /**
   * The delete files written and the ones they replace.
   *
   * @param added the new deletion vectors or position-delete files
   * @param replaced the delete files the base snapshot had for the same data files, now merged
   *     into {@code added}: remove them in the same commit
   * @param referencedDataFiles the data files rows were deleted from
   */
  public record Written(List<DeleteFile> added, List<DeleteFile> replaced, List<String> referencedDataFiles) {
    public Written {
      added = List.copyOf(added);
      replaced = List.copyOf(replaced);
      referencedDataFiles = List.copyOf(referencedDataFiles);
    }

    public boolean isEmpty() {
      return added.isEmpty();
    }

    /**
     * Puts these files into {@code delta}: adds the new ones, removes the replaced ones, and
     * makes the commit fail if a data file rows were deleted from is gone (compacted or deleted
     * by a concurrent commit) or got other deletes concurrently.
     */
    public RowDelta addTo(RowDelta delta) {
      added.forEach(delta::addDeletes);
      replaced.forEach(delta::removeDeletes);
      if (!referencedDataFiles.isEmpty()) {
        delta.validateDataFilesExist(referencedDataFiles).validateDeletedFiles().validateNoConflictingDeleteFiles();
      }
      return delta;
    }

    /** Deletes the files written (after a failed commit); a file that cannot be deleted is left as an orphan. */
    public void delete(FileIO io) {
      Set<String> locations = new LinkedHashSet<>();
      added.forEach(f -> locations.add(f.location()));
      locations.forEach(location -> deleteQuietly(io, location));
    }
  }

  /** The caller's FileIO, remembering every file created through it, so a failed write removes exactly its own files. */
  private static final class Recording extends ForwardingFileIO {
    private static final long serialVersionUID = 1L;
    private final List<String> created = new ArrayList<>();

    Recording(FileIO delegate) {
      super(delegate, Ownership.BORROWED);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      created.add(path);
      return super.newOutputFile(path);
    }

    void deleteCreated() {
      created.forEach(location -> deleteQuietly(delegate(), location));
    }
  }

  private static final class Target {
    final DataFile file;
    final Set<Long> positions = new HashSet<>();

    Target(DataFile file) {
      this.file = file;
    }
  }
}
