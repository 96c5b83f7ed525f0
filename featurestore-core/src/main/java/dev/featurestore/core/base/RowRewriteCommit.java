package dev.featurestore.core.base;

import dev.featurestore.CommitConflictException;
import dev.featurestore.core.base.RowMatches.FileMatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Internal, the commit of a forget: every data file whose bytes hold a matching row is replaced by
 * a copy of its other live rows (its delete files applied), or dropped when none is left, in one
 * {@code RowDelta} validated from the snapshot the files were found in, with the delete files that
 * only those data files used. Unlike {@link RowDeleteCommit} the rows do not stay in a live file
 * behind a deletion vector, so expiring the older snapshots removes their last copy. On a failed
 * commit the copies are deleted; on an unknown outcome they are kept.
 */
public final class RowRewriteCommit {
  private RowRewriteCommit() {}

  /**
   * What the rewrite did.
   *
   * @param snapshotId the commit; empty if no file held a row
   * @param liveRowsDeleted matching rows that were live (readable) before
   * @param filesRewritten data files replaced or dropped
   * @param filesWritten the copies
   */
  public record Rewritten(OptionalLong snapshotId, long liveRowsDeleted, long filesRewritten, long filesWritten) {}

  /** Rewrites the files of {@code raw} (found in {@code base} without applying deletes). */
  public static Rewritten commit(TableHandle handle, Table table, Snapshot base, RowMatches.Found raw,
      Runnable beforeCommit) {
    String what = "forget rows of table " + handle.id();
    if (raw.files().isEmpty()) {
      return new Rewritten(OptionalLong.empty(), 0, 0, 0);
    }
    Schema schema = table.schema();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 0, System.nanoTime())
        .format(FileFormat.PARQUET)
        .ioSupplier(handle::io)
        .build();
    RecordFileWriter writer = new RecordFileWriter(table, schema, FileFormat.PARQUET, Map.of(), outputs, handle.io());
    List<DataFile> written = List.of();
    long deleted = 0;
    try {
      for (FileMatch match : raw.files()) {
        deleted += copyOthers(table, schema, match, writer);
      }
      written = writer.finish();
      RowDelta delta = table.newRowDelta().validateFromSnapshot(base.snapshotId());
      Set<String> dropped = new LinkedHashSet<>();
      for (FileMatch match : raw.files()) {
        delta.removeRows(match.task().file());
        for (DeleteFile delete : RowDeleteCommit.onlyFor(match)) {
          if (dropped.add(delete.location())) {
            delta.removeDeletes(delete);
          }
        }
      }
      written.forEach(delta::addRows);
      // each removed file must still be there (missing delete paths fail) and have no new deletes
      delta.validateDeletedFiles().validateNoConflictingDeleteFiles();
      beforeCommit.run();
      delta.commit();
      return new Rewritten(OptionalLong.of(table.currentSnapshot().snapshotId()), deleted, raw.files().size(),
          written.size());
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw Errors.translate(e, what);
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      deleteAll(handle, written, writer);
      throw new CommitConflictException("Cannot " + what
          + ": a concurrent commit changed the same data files; nothing was removed, retry: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      deleteAll(handle, written, writer);
      throw Errors.translate(e, what);
    } catch (Error e) {
      deleteAll(handle, written, writer);
      throw e;
    }
  }

  /** Writes the live rows of the match's file that do not match; returns how many live rows matched. */
  private static long copyOthers(Table table, Schema schema, FileMatch match, RecordFileWriter writer) {
    long[] positions = match.positions();
    List<Types.NestedField> columns = schema.columns();
    long matched = 0;
    try (CloseableIterable<Record> rows = RowMatches.openLive(table, schema, match.task(), schema)) {
      for (Record row : rows) {
        long position = (Long) row.getField(MetadataColumns.ROW_POSITION.name());
        if (Arrays.binarySearch(positions, position) >= 0) {
          matched++;
          continue;
        }
        GenericRecord copy = GenericRecord.create(schema);
        for (int i = 0; i < columns.size(); i++) {
          copy.set(i, row.getField(columns.get(i).name()));
        }
        writer.write(copy);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return matched;
  }

  private static void deleteAll(TableHandle handle, List<DataFile> written, RecordFileWriter writer) {
    List<DataFile> files = new ArrayList<>(written);
    files.addAll(writer.abort());
    for (DataFile file : files) {
      try {
        handle.io().deleteFile(file.location());
      } catch (RuntimeException ignored) {
        // an orphan at worst: invisible to readers, removed by orphan-file cleanup
      }
    }
  }
}
