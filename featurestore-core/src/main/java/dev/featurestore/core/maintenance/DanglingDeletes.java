package dev.featurestore.core.maintenance;

import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.util.ContentFileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the delete files left pointing at data files a compaction removed (its commit names one
 * deletion vector and Iceberg drops the others only where it reads their manifest: see
 * {@link CompactionOperation}). They apply to no row (their data file is not in the table), so
 * this is housekeeping: one {@code RewriteFiles} that only removes delete files, built and applied
 * before the table's commit lock is taken and committed under it, so the lock is held for the
 * manifests the stream added meanwhile, not for all the manifests that list one of them. It never
 * fails the compaction: a conflict or an unknown outcome is logged (the outcome resolved from the
 * table's history), nothing is retried, and what is left stays harmless until the next compaction.
 */
final class DanglingDeletes {
  private static final Logger LOG = LoggerFactory.getLogger(DanglingDeletes.class);

  private DanglingDeletes() {}

  /** What the removal did: the delete files removed and how long it held the commit lock. */
  record Removed(long deleteFiles, long lockMillis) {
    static final Removed NONE = new Removed(0, 0);
  }

  /**
   * Removes the live delete files of the current snapshot that point at a data file not in it (those
   * of the compaction that just committed, and any an earlier removal left).
   * A stream's commit may drop some of them meanwhile (Iceberg drops delete files older than every
   * data file in any commit that reads their manifest); the removal then fails validation
   * ("missing required files") and is found and prepared again, three times at most.
   */
  static Removed remove(TableHandle handle) {
    for (int attempt = 1; ; attempt++) {
      try {
        return removeOnce(handle);
      } catch (dev.featurestore.CommitConflictException e) {
        if (attempt == 3) {
          LOG.warn("Compaction of table {}: cannot remove the delete files of the files it removed (they apply to no row; "
              + "the next compaction's commit or the stream's drops them): {}", handle.id(), e.getMessage());
          return Removed.NONE;
        }
      } catch (RuntimeException e) {
        LOG.warn("Compaction of table {}: cannot remove the delete files of the files it removed (they apply to no row; "
            + "the next compaction's commit or the stream's drops them): {}", handle.id(), e.getMessage());
        return Removed.NONE;
      }
    }
  }

  private static Removed removeOnce(TableHandle handle) {
    return handle.translating("remove the dangling deletes of table " + handle.id(), () -> {
      Table table = handle.refreshed();
      Snapshot current = table.currentSnapshot();
      List<DeleteFile> dangling = find(table, current);
      if (dangling.isEmpty()) {
        return Removed.NONE;
      }
      CommitMarks mark = CommitMarks.create();
      RewriteFiles rewrite = mark.mark(CommitPhases.forTable(table, table.newRewrite()));
      dangling.forEach(rewrite::deleteFile);
      try {
        rewrite.apply(); // the manifests filtered here are reused by the commit
      } catch (org.apache.iceberg.exceptions.ValidationException e) {
        throw new dev.featurestore.CommitConflictException("Cannot remove the dangling deletes of table " + handle.id()
            + ": a concurrent commit removed some: " + e.getMessage(), e);
      }
      long[] lockNanos = new long[1];
      long snapshotId = handle.commitLocked(() -> {
        long locked = System.nanoTime();
        try {
          CommitMarks.carryStreamMarks(handle.table().currentSnapshot(), rewrite).commit();
        } catch (org.apache.iceberg.exceptions.ValidationException e) {
          throw new dev.featurestore.CommitConflictException("Cannot remove the dangling deletes of table " + handle.id()
              + ": a concurrent commit removed some: " + e.getMessage(), e);
        } catch (CommitStateUnknownException e) {
          lockNanos[0] = System.nanoTime() - locked;
          return landed(handle, mark).orElseThrow(() -> e);
        }
        handle.table().refresh();
        lockNanos[0] = System.nanoTime() - locked;
        return mark.committedSnapshotId(handle.table(), null);
      });
      handle.record("remove_dangling_deletes", snapshotId, java.util.Map.of("delete_files", dangling.size(),
          "lock_ms", lockNanos[0] / 1_000_000));
      return new Removed(dangling.size(), lockNanos[0] / 1_000_000);
    });
  }

  /** Whether the marked commit is in the table's history (re-read); an unreadable table keeps the outcome unknown. */
  private static java.util.Optional<Long> landed(TableHandle handle, CommitMarks mark) {
    Table table = handle.table();
    table.refresh();
    for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (mark.id().equals(s.summary().get(mark.key()))) {
        return java.util.Optional.of(s.snapshotId());
      }
    }
    return java.util.Optional.empty();
  }

  /** The live delete files of {@code current} that point at one data file not live in it. */
  private static List<DeleteFile> find(Table table, Snapshot current) {
    List<DeleteFile> dangling = new ArrayList<>();
    if (current == null) {
      return dangling;
    }
    Set<String> live = new java.util.HashSet<>();
    for (ManifestFile manifest : current.dataManifests(table.io())) {
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles()) {
        continue;
      }
      try (ManifestReader<org.apache.iceberg.DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())
          .select(List.of("file_path"))) {
        reader.forEach(file -> live.add(file.location()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    for (ManifestFile manifest : current.deleteManifests(table.io())) {
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles()) {
        continue;
      }
      try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile delete : reader) {
          String referenced = ContentFileUtil.referencedDataFileLocation(delete);
          if (referenced != null && !live.contains(referenced)) {
            dangling.add(delete.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return dangling;
  }
}
