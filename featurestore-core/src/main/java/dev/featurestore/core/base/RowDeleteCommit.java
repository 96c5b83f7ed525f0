package dev.featurestore.core.base;

import dev.featurestore.CommitConflictException;
import dev.featurestore.DeleteResult;
import dev.featurestore.core.base.RowMatches.FileMatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Internal, the commit of a row-level delete: turns the matches of {@link RowMatches} into one
 * {@code RowDelta} validated from the snapshot they were found in. Rows go through {@link
 * PositionDeletes} (deletion vectors on format 3, one file-scoped position-delete file per data
 * file on format 2); a data file whose live rows all match is removed instead, with the delete
 * files that only it used. A concurrent commit that removed, rewrote or added deletes to a touched
 * file fails the commit with {@link CommitConflictException} after the files written are deleted;
 * an unknown commit outcome keeps them and is never retried.
 */
public final class RowDeleteCommit {
  private RowDeleteCommit() {}

  /** What {@link #commit} would do, without writing. */
  public static DeleteResult preview(Table table, RowMatches.Found found) {
    return result(OptionalLong.empty(), true, found, countWritten(found), countReplaced(table, found));
  }

  /**
   * Writes and commits the deletes of {@code found}, found in {@code base}. Runs {@code
   * beforeCommit} (a test seam) just before the commit.
   */
  public static DeleteResult commit(TableHandle handle, Table table, Snapshot base, RowMatches.Found found,
      Runnable beforeCommit) {
    String what = "delete rows of table " + handle.id();
    if (found.files().isEmpty()) {
      return result(OptionalLong.empty(), false, found, 0, 0);
    }
    Map<String, List<DeleteFile>> previous = new HashMap<>();
    for (FileMatch match : found.files()) {
      previous.put(match.location(), match.task().deletes());
    }
    PositionDeletes deletes = new PositionDeletes(table, location -> previous.getOrDefault(location, List.of()), handle.io());
    List<FileMatch> removed = new ArrayList<>();
    for (FileMatch match : found.files()) {
      if (match.wholeFile()) {
        removed.add(match);
      } else {
        for (long position : match.positions()) {
          deletes.delete(match.task().file(), position);
        }
      }
    }
    PositionDeletes.Written written = handle.translating(what, deletes::finish);
    try {
      RowDelta delta = table.newRowDelta().validateFromSnapshot(base.snapshotId());
      written.addTo(delta);
      Set<String> dropped = new LinkedHashSet<>();
      List<String> removedLocations = new ArrayList<>();
      for (FileMatch match : removed) {
        delta.removeRows(match.task().file());
        removedLocations.add(match.location());
        for (DeleteFile delete : onlyFor(match)) {
          if (dropped.add(delete.location())) {
            delta.removeDeletes(delete);
          }
        }
      }
      if (!removedLocations.isEmpty()) {
        // a removed file must still be there (missing delete paths fail) and have no new deletes
        delta.validateDeletedFiles().validateNoConflictingDeleteFiles();
      }
      beforeCommit.run();
      delta.commit();
      Snapshot committed = table.currentSnapshot();
      return result(OptionalLong.of(committed.snapshotId()), false, found, written.added().size(),
          written.replaced().size() + dropped.size());
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw Errors.translate(e, what); // the files may be committed: keep them, never retry blindly
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      written.delete(handle.io());
      throw new CommitConflictException("Cannot " + what
          + ": a concurrent commit changed the same data files; nothing was deleted, retry: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      written.delete(handle.io());
      throw Errors.translate(e, what);
    } catch (Error e) {
      written.delete(handle.io());
      throw e;
    }
  }

  /** The delete files that apply to this data file only (its deletion vector or file-scoped position deletes). */
  static List<DeleteFile> onlyFor(FileMatch match) {
    List<DeleteFile> own = new ArrayList<>();
    for (DeleteFile delete : match.task().deletes()) {
      if (delete.content() == FileContent.POSITION_DELETES && ContentFileUtil.isFileScoped(delete)) {
        own.add(delete);
      }
    }
    return own;
  }

  private static long countWritten(RowMatches.Found found) {
    long n = 0;
    for (FileMatch match : found.files()) {
      if (!match.wholeFile()) {
        n++;
      }
    }
    return n;
  }

  private static long countReplaced(Table table, RowMatches.Found found) {
    Set<String> replaced = new LinkedHashSet<>();
    for (FileMatch match : found.files()) {
      onlyFor(match).forEach(d -> replaced.add(d.location()));
    }
    return replaced.size();
  }

  private static DeleteResult result(OptionalLong snapshotId, boolean dryRun, RowMatches.Found found, long written,
      long replaced) {
    List<DeleteResult.FileDeletion> files = new ArrayList<>();
    long removed = 0;
    for (FileMatch match : found.files()) {
      files.add(new DeleteResult.FileDeletion(match.location(), match.rows(), match.wholeFile()));
      if (match.wholeFile()) {
        removed++;
      }
    }
    return new DeleteResult(snapshotId, dryRun, found.rows(), found.filesScanned(), found.files().size(), removed,
        written, replaced, files);
  }
}
