package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Internal, the one place that finds rows by position for a row-level delete: reads a planned
 * file task with Iceberg's generic reader, the row position ({@link MetadataColumns#ROW_POSITION})
 * projected, optionally applying the task's delete files, and keeps the positions of the rows a
 * check accepts. The check is the caller's (the query concern's row filter for deletes by filter,
 * the lookup concern's key check for deletes by key), so a delete selects exactly the rows that
 * concern's reads select. Thread-safe (no state).
 */
public final class RowMatches {
  private RowMatches() {}

  /**
   * The rows of one data file to delete.
   *
   * @param positions the matching rows' positions in the file, ascending (empty when {@code
   *     wholeFile} was decided from metadata without reading)
   * @param rows how many rows match
   * @param wholeFile whether every live row of the file matches (the file can be dropped)
   */
  public record FileMatch(FileScanTask task, long[] positions, long rows, boolean wholeFile) {
    public FileMatch {
      requireNonNull(task, "task is null");
      requireNonNull(positions, "positions is null");
    }

    /** A file every row of which matches by its partition alone, known without reading it. */
    public static FileMatch whole(FileScanTask task) {
      return new FileMatch(task, new long[0], task.file().recordCount(), true);
    }

    public String location() {
      return task.file().location();
    }
  }

  /**
   * What a search found.
   *
   * @param files the data files with at least one matching row, in planning order
   * @param filesScanned data files read to find them
   */
  public record Found(List<FileMatch> files, long filesScanned) {
    public Found {
      files = List.copyOf(files);
    }

    public long rows() {
      return files.stream().mapToLong(FileMatch::rows).sum();
    }
  }

  /**
   * Reads {@code task} and returns its matching rows, or null if none matches.
   *
   * @param schema the schema the task's files and deletes are read with
   * @param needed the columns {@code check} reads
   * @param check builds the row check for the struct of the records read (the needed columns,
   *     the position and what deletes need); it is given records wrapped by {@link InternalRecordWrapper}
   * @param applyDeletes whether rows the task's delete files remove are skipped; without, every row
   *     of the file counts (what the file's bytes hold) and {@code wholeFile} is never set
   */
  public static FileMatch scan(Table table, Schema schema, FileScanTask task, Schema needed,
      Function<Types.StructType, Predicate<StructLike>> check, boolean applyDeletes) {
    Schema requested = TypeUtil.join(needed, new Schema(MetadataColumns.ROW_POSITION));
    GenericDeleteFilter deletes = applyDeletes && !task.deletes().isEmpty()
        ? new GenericDeleteFilter(table.io(), task, schema, requested) : null;
    Schema required = deletes == null ? requested : deletes.requiredSchema();
    Predicate<StructLike> test = check.apply(required.asStruct());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(required.asStruct());
    int positionIndex = indexOf(required, MetadataColumns.ROW_POSITION.fieldId());
    long[] positions = new long[16];
    int found = 0;
    long live = 0;
    CloseableIterable<Record> raw = open(table, task, required);
    try (CloseableIterable<Record> records = deletes == null ? raw : deletes.filter(raw)) {
      for (Record record : records) {
        live++;
        if (test.test(wrapper.wrap(record))) {
          if (found == positions.length) {
            positions = Arrays.copyOf(positions, found * 2);
          }
          positions[found++] = (Long) record.get(positionIndex);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (found == 0) {
      return null;
    }
    long[] sorted = Arrays.copyOf(positions, found);
    Arrays.sort(sorted);
    return new FileMatch(task, sorted, found, applyDeletes && found == live);
  }

  /**
   * Opens the rows of {@code task} with {@code projection} (partition values as constants), without
   * applying deletes; the caller filters them.
   */
  public static CloseableIterable<Record> open(Table table, FileScanTask task, Schema projection) {
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    return FormatModelRegistry.readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
        .project(projection)
        .idToConstant(constants)
        .caseSensitive(true)
        .filter(Expressions.alwaysTrue()) // every row group: positions and live counts must be whole
        .build();
  }

  /** Opens the live rows of {@code task} (its deletes applied) with {@code projection} and their positions. */
  public static CloseableIterable<Record> openLive(Table table, Schema schema, FileScanTask task, Schema projection) {
    Schema requested = TypeUtil.join(projection, new Schema(MetadataColumns.ROW_POSITION));
    if (task.deletes().isEmpty()) {
      return open(table, task, requested);
    }
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, requested);
    return deletes.filter(open(table, task, deletes.requiredSchema()));
  }

  private static int indexOf(Schema schema, int fieldId) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    throw new IllegalStateException("no field " + fieldId + " in " + schema);
  }
}
