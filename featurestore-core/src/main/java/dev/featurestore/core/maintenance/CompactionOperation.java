package dev.featurestore.core.maintenance;


import dev.featurestore.CommitConflictException;
import dev.featurestore.Compaction;
import dev.featurestore.CompactionResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.RowMoves;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.maintenance.CompactionChoice.Group;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bin-packs the small files of each partition: reads their rows with Iceberg's generic reader and
 * delete filter (so deleted rows are dropped), writes target-sized files, and swaps them in with
 * one {@code RewriteFiles} commit validated from the planned snapshot. The new files keep the
 * planned snapshot's data sequence number, so equality deletes committed meanwhile still apply.
 */
final class CompactionOperation implements Compaction {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionOperation.class);

  private final TableHandle handle;
  private Long targetFileSize;
  private Long smallFileThreshold;
  private double deletedRowsThreshold = MaintenancePolicy.DEFAULT_DELETED_ROWS_THRESHOLD;
  private int minInputFiles = 2;
  private double sizeRatio = 0; // no size tiers: every small file
  private int tierFiles = MaintenancePolicy.DEFAULT_COMPACTION_TIER_FILES;
  private SortOrder sortOrder;
  private Expression filter = Expressions.alwaysTrue();
  private boolean used = false;
  /** What {@link #planAt} planned, for {@link #execute()} to run on; null: execute plans itself. */
  private Planned planned;
  /** Test hook: runs after the files are written, before the commit. */
  Runnable beforeCommit = () -> {};
  /** Test hook: runs after the commit was prepared, before the commit lock is taken. */
  Runnable afterPrepare = () -> {};
  /** Test hook: runs holding the commit lock, after the last deletes to carry over were read, before they are written. */
  Runnable beforeCarriedCommit = () -> {};

  CompactionOperation(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public Compaction targetFileSizeBytes(long bytes) {
    this.targetFileSize = checkPositive(bytes);
    return this;
  }

  @Override
  public Compaction smallFileThresholdBytes(long bytes) {
    if (bytes <= 0) {
      throw new InvalidArgumentException("Cannot compact: small-file threshold must be positive: " + bytes);
    }
    this.smallFileThreshold = bytes;
    return this;
  }

  @Override
  public Compaction deletedRowsThreshold(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new InvalidArgumentException("Cannot compact: deleted-rows threshold must be between 0 and 1: " + fraction);
    }
    this.deletedRowsThreshold = fraction;
    return this;
  }

  @Override
  public Compaction minInputFiles(int count) {
    if (count < 1) {
      throw new InvalidArgumentException("Cannot compact: minimum input files must be at least 1: " + count);
    }
    this.minInputFiles = count;
    return this;
  }

  @Override
  public Compaction sizeTiers(double sizeRatio, int minFiles) {
    if (!(sizeRatio >= 1) || Double.isInfinite(sizeRatio)) {
      throw new InvalidArgumentException("Cannot compact size tiers: size ratio must be a number of at least 1: " + sizeRatio);
    }
    if (minFiles < 2) {
      throw new InvalidArgumentException("Cannot compact size tiers: files per tier must be at least 2: " + minFiles);
    }
    this.sizeRatio = sizeRatio;
    this.tierFiles = minFiles;
    return this;
  }

  @Override
  public Compaction sortBy(SortOrder order) {
    this.sortOrder = InvalidArgumentException.requireNonNull(order, "compact table", "order");
    return this;
  }

  @Override
  public Compaction filter(Expression filter) {
    this.filter = InvalidArgumentException.requireNonNull(filter, "compact table", "filter");
    return this;
  }

  private static long checkPositive(long bytes) {
    if (bytes <= 0) {
      throw new InvalidArgumentException("Cannot compact: target file size must be positive: " + bytes);
    }
    return bytes;
  }

  @Override
  public CompactionResult execute() {
    if (used) {
      throw new InvalidStateException("Cannot execute compaction of table " + handle.id() + ": already executed");
    }
    used = true;
    long started = System.nanoTime();
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    Planned planned = handedOver(table);
    if (planned == null) {
      long target = targetFileSize(table);
      if (table.currentSnapshot() == null) {
        return CompactionResult.nothingToDo();
      }
      planned = planAt(table, table.currentSnapshot(), target);
    }
    long target = planned.target();
    Snapshot start = planned.snapshot();
    List<FileScanTask> tasks = planned.tasks();
    List<Group> groups = planned.groups();
    if (groups.isEmpty()) {
      return CompactionResult.nothingToDo();
    }
    Set<String> rewritten = new HashSet<>();
    List<FileScanTask> rewrittenTasks = new ArrayList<>();
    for (Group group : groups) {
      group.tasks().forEach(t -> rewritten.add(t.file().location()));
      rewrittenTasks.addAll(group.tasks());
    }
    SortOrder order = sortOrder != null ? sortOrder : table.sortOrder();
    // rows copied in file order, only file-scoped position deletes: deletes committed meanwhile can be carried over
    RowMoves moves = !order.isSorted() && rewrittenTasks.stream().allMatch(CompactionOperation::carriable) ? new RowMoves() : null;
    List<DeleteFile> danglingDeletes = moves == null && filter == Expressions.alwaysTrue()
        ? danglingDeletes(tasks, rewritten) : List.of();

    List<DataFile> written = new ArrayList<>();
    long rows;
    try {
      rows = handle.translating("write compacted files of table " + handle.id(),
          () -> write(table, groups, order, target, written, moves));
    } catch (RuntimeException e) {
      deleteQuietly(written);
      throw e;
    }
    long rewrittenBytes = 0;
    long addedBytes = 0;
    for (FileScanTask task : rewrittenTasks) {
      rewrittenBytes += task.file().fileSizeInBytes();
    }
    for (DataFile file : written) {
      addedBytes += file.fileSizeInBytes();
    }
    Committed committed;
    try {
      beforeCommit.run();
      if (moves == null) {
        committed = handle.commitLocked(() -> new Committed(commit(handle.table(), start, groups, danglingDeletes, written),
            danglingDeletes.size(), 0, 0));
      } else {
        moves.writtenTo(written);
        committed = commitCarrying(start, rewrittenTasks, written, moves);
      }
    } catch (dev.featurestore.CommitStateUnknownException e) {
      throw e; // the files may be committed: never delete them blindly
    } catch (RuntimeException e) {
      deleteQuietly(written);
      throw e;
    }
    Set<String> partitions = new HashSet<>();
    groups.forEach(g -> partitions.add(g.spec().specId() + "/" + g.spec().partitionToPath(g.partition())));
    LOG.info("Compacted table {}: {} files -> {} files in {} groups{}", handle.id(), rewritten.size(), written.size(),
        groups.size(), moves == null ? "" : ", " + committed.carried() + " deletes carried over from "
            + committed.carriedSnapshots() + " commits made during the rewrite, commit lock held "
            + committed.lockMillis() + " ms (" + committed.commitMillis() + " ms of it the commit)");
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("rewritten_files", rewritten.size());
    details.put("added_files", written.size());
    details.put("removed_delete_files", committed.removedDeletes());
    details.put("rewritten_bytes", rewrittenBytes);
    details.put("added_bytes", addedBytes);
    details.put("rows", rows);
    if (sizeRatio > 0) {
      details.put("size_tiers", sizeRatio + "x/" + tierFiles);
    }
    details.put("carried_deletes", committed.carried());
    details.put("carried_from_commits", committed.carriedSnapshots());
    details.put("lock_ms", committed.lockMillis());
    details.put("commit_ms", committed.commitMillis());
    details.put("prepare_ms", committed.prepareMillis());
    details.put("cleanup_lock_ms", committed.cleanupLockMillis());
    details.put("elapsed_ms", (System.nanoTime() - started) / 1_000_000);
    handle.record("compact", committed.snapshotId(), details);
    return new CompactionResult(OptionalLong.of(committed.snapshotId()), rewritten.size(), written.size(),
        committed.removedDeletes(), rewrittenBytes, addedBytes, rows, partitions.size(), committed.carried());
  }

  /**
   * What a compaction planned: the files of {@code snapshot} (its filter applied), the sizes it
   * decided with, and the groups it rewrites of them (empty: nothing worth rewriting).
   */
  record Planned(Snapshot snapshot, List<FileScanTask> tasks, long small, long target, List<Group> groups) {}

  /**
   * Plans this compaction at {@code snapshot} of {@code table} and chooses what it would rewrite,
   * with its settings (so call this after configuring it). A maintenance plan decides its compaction
   * step from this, and {@link #execute()} then runs on this planning instead of planning again,
   * committing against {@code snapshot}: a commit landed since is handled as one landing during the
   * rewrite (carried over, or a {@link CommitConflictException} with the table unchanged). If
   * {@code snapshot} is no longer the current snapshot or one of its ancestors when {@code execute()}
   * runs (history rolled back, the snapshot expired), it plans again at the current snapshot.
   *
   * @param target the target file size, {@link #targetFileSize(Table)}
   */
  Planned planAt(Table table, Snapshot snapshot, long target) {
    long small = smallFileThreshold != null ? smallFileThreshold : Math.max(1, target * 3 / 4);
    List<FileScanTask> tasks = handle.translating("plan compaction of table " + handle.id(), () -> plan(table, snapshot));
    List<Group> groups = new CompactionChoice(small, target, deletedRowsThreshold, minInputFiles, sizeRatio, tierFiles)
        .groups(table, tasks);
    planned = new Planned(snapshot, List.copyOf(tasks), small, target, List.copyOf(groups));
    return planned;
  }

  /** Whether this compaction was created by {@code owner}: the handle whose table it compacts. */
  boolean compacts(TableHandle owner) {
    return handle == owner;
  }

  /** The planning handed over by {@link #planAt}, if its snapshot is still in the table's current history. */
  private Planned handedOver(Table table) {
    Planned handed = planned;
    if (handed == null) {
      return null;
    }
    Snapshot current = table.currentSnapshot();
    if (current != null && SnapshotUtil.isAncestorOf(table, current.snapshotId(), handed.snapshot().snapshotId())) {
      return handed;
    }
    LOG.info("Compaction of table {}: the planned snapshot {} is no longer in the table's current history; planned again",
        handle.id(), handed.snapshot().snapshotId());
    return null;
  }

  /**
   * The size of the files written: the one set, else the table's {@code write.target-file-size-bytes}.
   *
   * @throws InvalidArgumentException if none was set and the table's is not positive
   */
  long targetFileSize(Table table) {
    return targetFileSize != null ? targetFileSize
        : checkPositive(PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
  }

  /** What a commit did: the snapshot, delete files removed, positions carried over, and for how long it held the lock. */
  private record Committed(long snapshotId, long removedDeletes, long carried, long lockMillis, long carriedSnapshots,
      long commitMillis, long prepareMillis, long cleanupLockMillis) {
    Committed(long snapshotId, long removedDeletes, long carried, long lockMillis) {
      this(snapshotId, removedDeletes, carried, lockMillis, 0, 0, 0, 0);
    }
  }

  /** A file whose rows can be copied in order with their deletes known by position (no equality deletes, each scoped to it). */
  private static boolean carriable(FileScanTask task) {
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.POSITION_DELETES || !ContentFileUtil.isFileScoped(delete)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Commits a rewrite whose rows were copied in order: the position deletes committed since
   * {@code start} on the rewritten files are carried over to the new files, and ONE
   * {@code RewriteFiles} validated from the current snapshot swaps the files.
   *
   * <p>What the stream waits for is the part under the table's commit lock, so that part follows
   * the compacted group, not the table's history. Most of the commit's work is rewriting the
   * manifests that list a removed file (about one per stream commit since the last merge), and
   * it is done before taking the lock: the rewrite is built and applied ({@link Prepared}), which
   * leaves Iceberg's filtered manifests cached in it. Under the lock the carry-over walks the last
   * few commits, and the same rewrite commits against the current snapshot: the manifests
   * unchanged since the preparation come from the cache, only those the stream added meanwhile
   * are filtered. On format 3 the deletion vectors of the rewritten files are not named one by
   * one (a vector the stream replaced meanwhile would fail the commit, and naming new ones would
   * throw the cache away): Iceberg drops a removed data file's vectors by itself where it reads
   * their manifest, one of them is named (Iceberg requires a removed delete file when delete
   * files are added) and the rest, left pointing at files no longer in the table (they apply to
   * no row), are removed by a second, equally prepared commit right after.
   */
  private Committed commitCarrying(Snapshot start, List<FileScanTask> tasks, List<DataFile> written, RowMoves moves) {
    DeleteCarry carry = new DeleteCarry(handle.table(), handle.id().toString(), start, tasks, moves);
    long prepareStart = System.nanoTime();
    Prepared prepared = handle.translating("prepare the compaction commit of table " + handle.id(),
        () -> prepare(start, tasks, written, carry));
    long prepareMillis = (System.nanoTime() - prepareStart) / 1_000_000;
    try {
      afterPrepare.run();
    } catch (RuntimeException | Error e) {
      prepared.discardUnused(handle.io());
      throw e;
    }
    long[] lockNanos = new long[1];
    long[] snapshots = new long[1];
    long[] carried = new long[1];
    long[] commitNanos = new long[1];
    boolean[] leftDangling = new boolean[1];
    long snapshotId;
    try {
      snapshotId = handle.commitLocked(() -> {
        long locked = System.nanoTime();
        Table table = handle.table();
        Snapshot current = table.currentSnapshot();
        carry.advance(current);
        snapshots[0] = countSnapshots(table, start, current);
        beforeCarriedCommit.run();
        DeleteCarry.Carried deletes = carry.write(handle.io());
        carried[0] = deletes.positions();
        Prepared.Final commit;
        try {
          commit = prepared.finish(table, current, carry.currentDeletes(), !deletes.files().added().isEmpty());
        } catch (RuntimeException | Error e) {
          deletes.files().delete(handle.io());
          throw e;
        }
        commitNanos[0] = System.nanoTime();
        try {
          try {
            commit(commit, current, deletes);
          } catch (org.apache.iceberg.exceptions.ValidationException e) {
            if (!commit.leavesDangling()) {
              throw e;
            }
            // the named vector was missing after all (dropped by Iceberg as older than every data file): the
            // rewrite as before the preparation, every delete file named; a real conflict fails it again
            LOG.info("Compaction of table {}: the prepared commit failed validation ({}); committed naming every "
                + "delete file", handle.id(), e.getMessage());
            commit = prepared.namingEvery(carry.currentDeletes());
            commit(commit, current, deletes);
          }
          leftDangling[0] = commit.leavesDangling();
          commitNanos[0] = System.nanoTime() - commitNanos[0];
        } catch (org.apache.iceberg.exceptions.ValidationException e) {
          deletes.files().delete(handle.io());
          throw new CommitConflictException(
              "Cannot compact table " + handle.id() + ": a concurrent commit conflicts: " + e.getMessage(), e);
        } catch (CommitStateUnknownException e) {
          OptionalLong landed = landed(table, commit.mark(), e);
          if (landed.isEmpty()) {
            deletes.files().delete(handle.io());
            throw new dev.featurestore.StorageException("Cannot compact table " + handle.id()
                + ": the commit's outcome was unknown and the table shows it did not land: " + e.getMessage(), e);
          }
          lockNanos[0] = System.nanoTime() - locked;
          return landed.getAsLong();
        } catch (RuntimeException | Error e) {
          deletes.files().delete(handle.io());
          throw e;
        }
        table.refresh();
        lockNanos[0] = System.nanoTime() - locked;
        return commit.mark().committedSnapshotId(table, null);
      });
    } finally {
      prepared.discardUnused(handle.io());
    }
    handle.coordination().published(moves.committedAs(snapshotId));
    long removed = removedDeleteFiles(snapshotId);
    DanglingDeletes.Removed cleanup = leftDangling[0]
        ? DanglingDeletes.remove(handle)
        : DanglingDeletes.Removed.NONE;
    return new Committed(snapshotId, removed + cleanup.deleteFiles(), carried[0], lockNanos[0] / 1_000_000, snapshots[0],
        commitNanos[0] / 1_000_000, prepareMillis, cleanup.lockMillis());
  }

  /** Commits {@code commit} under the lock, validated from {@code current}, with the carried deletes. */
  private static void commit(Prepared.Final commit, Snapshot current, DeleteCarry.Carried deletes) {
    RewriteFiles rewrite = commit.rewrite();
    CommitMarks.carryStreamMarks(current, rewrite).validateFromSnapshot(current.snapshotId());
    deletes.files().added().forEach(rewrite::addFile);
    rewrite.commit(); // on a failure Iceberg removes what it wrote, the preparation's manifests too
  }

  /** The delete files the compaction's snapshot removed, from its summary (0 if it is not readable). */
  private long removedDeleteFiles(long snapshotId) {
    Snapshot committed = handle.table().snapshot(snapshotId);
    String removed = committed == null ? null : committed.summary().get("removed-delete-files");
    return removed == null ? 0 : Long.parseLong(removed);
  }

  /**
   * Builds the rewrite and applies it outside the lock, walking the carry-over to the snapshot it
   * applied to; a few attempts when the stream commits in between (Iceberg validates that no
   * delete was added to a removed file since the snapshot the rewrite is validated from).
   */
  private Prepared prepare(Snapshot start, List<FileScanTask> tasks, List<DataFile> written, DeleteCarry carry) {
    Prepared prepared = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      Table table = handle.refreshed();
      Snapshot current = table.currentSnapshot();
      carry.advance(current);
      if (prepared == null) {
        prepared = new Prepared(table, start, tasks, written);
        prepared.nameDeletes(current, carry.currentDeletes(), true); // the stream's deletes are usually carried
      } else if (!prepared.stillApplies(carry.currentDeletes())) {
        return prepared; // a named delete file was replaced: the commit rebuilds the rewrite under the lock
      } else {
        prepared.nameDeletes(current, carry.currentDeletes(), true);
      }
      try {
        prepared.apply(current);
        return prepared;
      } catch (org.apache.iceberg.exceptions.ValidationException e) {
        LOG.debug("Compaction of table {}: a commit landed while its rewrite was prepared; again: {}", handle.id(),
            e.getMessage());
      }
    }
    return prepared;
  }

  /**
   * A compaction's {@code RewriteFiles}, built and applied before the commit lock is taken: the data
   * files removed and added, and the delete files named for removal. Iceberg caches the manifests
   * it filtered in the rewrite, so committing it later rewrites only the manifests that changed.
   */
  private final class Prepared {
    private final Table table;
    private final Snapshot start;
    private final List<FileScanTask> tasks;
    private final List<DataFile> written;
    private RewriteFiles rewrite;
    private CommitMarks mark;
    /** The delete files named for removal, by {@link DeleteCarry#key}. */
    private final Map<String, DeleteFile> named = new LinkedHashMap<>();
    private final List<Snapshot> staged = new ArrayList<>();
    private RewriteFiles committed;

    Prepared(Table table, Snapshot start, List<FileScanTask> tasks, List<DataFile> written) {
      this.table = table;
      this.start = start;
      this.tasks = tasks;
      this.written = written;
      this.rewrite = newRewrite();
    }

    private RewriteFiles newRewrite() {
      mark = CommitMarks.create();
      RewriteFiles r = mark.mark(CommitPhases.forTable(table, table.newRewrite()));
      if (start.sequenceNumber() > 0) {
        r.dataSequenceNumber(start.sequenceNumber()); // equality deletes committed meanwhile still apply
      }
      tasks.forEach(task -> r.deleteFile(task.file()));
      written.forEach(r::addFile);
      return r;
    }

    /** Whether every delete file named so far is still one of the rewritten files' delete files. */
    boolean stillApplies(List<DeleteFile> currentDeletes) {
      Set<String> keys = new HashSet<>();
      currentDeletes.forEach(d -> keys.add(DeleteCarry.key(d)));
      return keys.containsAll(named.keySet());
    }

    /**
     * Names the delete files to remove: on format 3 with only deletion vectors, one vector when
     * one is needed (Iceberg drops the others where it reads their manifest; {@code required}:
     * delete files are added, so one must be removed), preferably of the file the stream is least
     * likely to touch before the commit, listed in a manifest of {@code current} (so Iceberg reads
     * only that manifest for it); otherwise every delete file.
     */
    void nameDeletes(Snapshot current, List<DeleteFile> currentDeletes, boolean required) {
      if (vectorsOnly(currentDeletes)) {
        if (!named.isEmpty() || currentDeletes.isEmpty() || !required) {
          return;
        }
        Set<String> manifests = new HashSet<>();
        current.deleteManifests(table.io()).forEach(m -> manifests.add(m.path()));
        Map<String, Long> rowsOf = new HashMap<>();
        tasks.forEach(t -> rowsOf.put(t.file().location(), t.file().recordCount()));
        DeleteFile anchor = null;
        long anchorLive = Long.MAX_VALUE;
        for (DeleteFile d : currentDeletes) {
          boolean listed = d.manifestLocation() != null && manifests.contains(d.manifestLocation());
          long live = rowsOf.getOrDefault(d.referencedDataFile(), Long.MAX_VALUE) - d.recordCount();
          if (anchor == null || (listed && live < anchorLive)) {
            anchor = d;
            anchorLive = listed ? live : Long.MAX_VALUE;
          }
        }
        name(anchor);
      } else {
        currentDeletes.forEach(this::name);
      }
    }

    private boolean vectorsOnly(List<DeleteFile> deletes) {
      return org.apache.iceberg.TableUtil.formatVersion(table) >= 3 && deletes.stream().allMatch(ContentFileUtil::isDV);
    }

    private void name(DeleteFile delete) {
      if (named.putIfAbsent(DeleteCarry.key(delete), delete) == null) {
        rewrite.deleteFile(delete);
      }
    }

    void apply(Snapshot current) {
      rewrite.validateFromSnapshot(current.snapshotId());
      staged.add(rewrite.apply());
    }

    /** What is committed under the lock. */
    record Final(RewriteFiles rewrite, CommitMarks mark, boolean leavesDangling) {}

    /**
     * Under the lock, with the rewritten files' delete files as of {@code current}: the rewrite to
     * commit. The prepared one when every delete file it named is still there (only the missing
     * names are added); else a new one (a named vector was replaced meanwhile: it could not be
     * removed), built here as before this preparation existed.
     */
    Final finish(Table current, Snapshot snapshot, List<DeleteFile> currentDeletes, boolean addsDeletes) {
      if (!stillApplies(currentDeletes)) {
        LOG.debug("Compaction of table {}: a delete file named in the prepared rewrite was replaced; rebuilt under the lock",
            handle.id());
        discardStaged(handle.io());
        named.clear();
        rewrite = newRewrite();
      }
      nameDeletes(snapshot, currentDeletes, addsDeletes);
      committed = rewrite;
      boolean vectors = vectorsOnly(currentDeletes);
      // with a vector named, Iceberg reads only that vector's manifest: the other vectors stay (pointing at removed files)
      return new Final(rewrite, mark, vectors && !named.isEmpty() && named.size() < currentDeletes.size());
    }

    /** A new rewrite naming every one of {@code currentDeletes}: what the commit was before the preparation. */
    Final namingEvery(List<DeleteFile> currentDeletes) {
      named.clear();
      rewrite = newRewrite();
      currentDeletes.forEach(this::name);
      committed = rewrite;
      return new Final(rewrite, mark, false);
    }

    /** Deletes what an abandoned preparation wrote (its manifest lists and manifests). */
    void discardUnused(org.apache.iceberg.io.FileIO io) {
      if (committed == null) {
        discardStaged(io); // the lock was never reached with it: Iceberg will not clean it up
      }
    }

    private void discardStaged(org.apache.iceberg.io.FileIO io) {
      for (Snapshot s : staged) {
        try {
          for (org.apache.iceberg.ManifestFile m : s.allManifests(io)) {
            if (m.snapshotId() != null && m.snapshotId() == s.snapshotId()) {
              io.deleteFile(m.path());
            }
          }
          io.deleteFile(s.manifestListLocation());
        } catch (RuntimeException e) {
          LOG.warn("Cannot delete the prepared commit of a compaction of table {}: {}", handle.id(), e.toString());
        }
      }
      staged.clear();
    }
  }

  /**
   * After an unknown outcome: whether the marked commit is in the table's history (re-read). If the
   * table cannot be read either, the outcome stays unknown: thrown, nothing deleted, nothing retried.
   */
  private OptionalLong landed(Table table, CommitMarks mark, CommitStateUnknownException unknown) {
    try {
      table.refresh();
    } catch (RuntimeException e) {
      unknown.addSuppressed(e);
      throw unknown;
    }
    for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (mark.id().equals(s.summary().get(mark.key()))) {
        LOG.warn("Compaction of table {}: the commit's outcome was unknown; the table shows it landed as snapshot {}",
            handle.id(), s.snapshotId());
        return OptionalLong.of(s.snapshotId());
      }
    }
    LOG.warn("Compaction of table {}: the commit's outcome was unknown; the table shows it did not land", handle.id());
    return OptionalLong.empty();
  }

  private static long countSnapshots(Table table, Snapshot start, Snapshot current) {
    long n = 0;
    for (Snapshot s = current; s != null && s.snapshotId() != start.snapshotId();
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      n++;
    }
    return n;
  }

  private List<FileScanTask> plan(Table table, Snapshot start) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = ScanPlanning.newScan(table, start)
        .filter(filter)
        .ignoreResiduals()
        .planFiles()) {
      files.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  /** Delete files that apply only to files being rewritten; after the rewrite they apply to nothing. */
  private static List<DeleteFile> danglingDeletes(List<FileScanTask> tasks, Set<String> rewritten) {
    Map<String, DeleteFile> deletes = new HashMap<>();
    Set<String> stillNeeded = new HashSet<>();
    for (FileScanTask task : tasks) {
      boolean kept = !rewritten.contains(task.file().location());
      for (DeleteFile delete : task.deletes()) {
        String key = deleteKey(delete);
        deletes.putIfAbsent(key, delete);
        if (kept) {
          stillNeeded.add(key);
        }
      }
    }
    List<DeleteFile> dangling = new ArrayList<>();
    deletes.forEach((location, file) -> {
      if (!stillNeeded.contains(location)) {
        dangling.add(file);
      }
    });
    return dangling;
  }

  /** v3 deletion vectors share one Puffin file: each is its own delete file, told apart by its offset. */
  private static String deleteKey(DeleteFile delete) {
    Long offset = delete.contentOffset();
    return offset == null ? delete.location() : delete.location() + "#" + offset;
  }

  private long write(Table table, List<Group> groups, SortOrder order, long target, List<DataFile> written,
      RowMoves moves) {
    Schema schema = table.schema();
    FileFormat format = FileFormat.fromString(
        table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    GenericFileWriterFactory.Builder factory = new GenericFileWriterFactory.Builder(table).dataFileFormat(format);
    if (order.isSorted()) {
      factory.dataSortOrder(order);
    }
    GenericFileWriterFactory writers = factory.build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 0, System.nanoTime())
        .format(format)
        .operationId("compact-" + UUID.randomUUID())
        .build();
    long rows = 0;
    for (Group group : groups) {
      StructLike partition = group.spec().isUnpartitioned() ? null : group.partition();
      RollingDataWriter<Record> writer =
          new RollingDataWriter<>(writers, outputs, table.io(), target, group.spec(), partition);
      try {
        try (writer) {
          if (order.isSorted()) {
            List<Record> buffer = new ArrayList<>();
            readAll(table, schema, group, record -> buffer.add(record.copy()));
            buffer.sort(comparator(schema, order));
            buffer.forEach(writer::write);
            rows += buffer.size();
          } else if (moves != null) {
            rows += copyInOrder(table, schema, group, writer, moves);
          } else {
            long[] count = {0};
            readAll(table, schema, group, record -> {
              writer.write(record);
              count[0]++;
            });
            rows += count[0];
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        // on failure, what the writer finished is still reported; the caller deletes it
        try {
          written.addAll(writer.result().dataFiles());
        } catch (RuntimeException notClosed) {
          // the writer failed before closing: nothing complete to report
        }
      }
    }
    return rows;
  }

  private static Comparator<Record> comparator(Schema schema, SortOrder order) {
    Comparator<StructLike> structs = SortOrderComparators.forSchema(schema, order);
    InternalRecordWrapper left = new InternalRecordWrapper(schema.asStruct());
    InternalRecordWrapper right = new InternalRecordWrapper(schema.asStruct());
    return (a, b) -> structs.compare(left.wrap(a), right.wrap(b));
  }

  /** Reads one group's rows with deletes applied, as the table's own generic read path does. */
  private static void readAll(Table table, Schema schema, Group group, java.util.function.Consumer<Record> sink)
      throws IOException {
    for (FileScanTask task : group.tasks()) {
      GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
      Schema required = deletes.requiredSchema();
      Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      try (CloseableIterable<Record> records = deletes.filter(
          FormatModelRegistry.readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
              .project(required)
              .idToConstant(constants)
              .split(task.start(), task.length())
              .build())) {
        for (Record record : records) {
          sink.accept(projected(record, schema, required));
        }
      }
    }
  }

  /**
   * Copies a group's rows file by file in file order, skipping the positions the file's
   * (file-scoped, positional) deletes delete, and records where each file's rows went.
   */
  private static long copyInOrder(Table table, Schema schema, Group group, RollingDataWriter<Record> writer,
      RowMoves moves) throws IOException {
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
    long rows = 0;
    for (FileScanTask task : group.tasks()) {
      DataFile file = task.file();
      PositionDeleteIndex deleted = task.deletes().isEmpty() ? PositionDeleteIndex.empty()
          : loader.loadPositionDeletes(task.deletes(), file.location());
      List<Long> deletedList = new ArrayList<>();
      deleted.forEach(position -> {
        if (position < file.recordCount()) {
          deletedList.add(position);
        }
      });
      Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      long position = 0;
      try (CloseableIterable<Record> records = FormatModelRegistry.readBuilder(file.format(), Record.class,
              table.io().newInputFile(file))
          .project(schema)
          .idToConstant(constants)
          .build()) {
        for (Record record : records) {
          if (!deleted.isDeleted(position)) {
            writer.write(record);
            rows++;
          }
          position++;
        }
      }
      if (position != file.recordCount()) {
        throw new IllegalStateException("Cannot compact data file " + file.location() + ": read " + position
            + " rows, its metadata says " + file.recordCount());
      }
      moves.copied(file.location(), deletedList.stream().mapToLong(Long::longValue).toArray(), file.recordCount());
    }
    return rows;
  }

  /** The delete filter may need extra columns (e.g. _pos); write only the table's columns. */
  private static Record projected(Record record, Schema schema, Schema required) {
    if (required.columns().size() == schema.columns().size()) {
      return record;
    }
    Record out = org.apache.iceberg.data.GenericRecord.create(schema);
    for (int i = 0; i < schema.columns().size(); i++) {
      out.set(i, record.getField(schema.columns().get(i).name()));
    }
    return out;
  }

  private long commit(Table table, Snapshot start, List<Group> groups, List<DeleteFile> danglingDeletes,
      List<DataFile> written) {
    CommitMarks mark = CommitMarks.create();
    RewriteFiles rewrite = CommitMarks.carryStreamMarks(table.currentSnapshot(),
        mark.mark(table.newRewrite().validateFromSnapshot(start.snapshotId())));
    if (start.sequenceNumber() > 0) {
      rewrite.dataSequenceNumber(start.sequenceNumber());
    }
    for (Group group : groups) {
      group.tasks().forEach(task -> rewrite.deleteFile(task.file()));
    }
    danglingDeletes.forEach(rewrite::deleteFile);
    written.forEach(rewrite::addFile);
    try {
      rewrite.commit();
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new CommitConflictException(
          "Cannot compact table " + handle.id() + ": a concurrent commit conflicts: " + e.getMessage(), e);
    } catch (CommitStateUnknownException e) {
      throw Errors.translate(e, "compact table " + handle.id());
    }
    table.refresh();
    return mark.committedSnapshotId(table, null);
  }

  private void deleteQuietly(List<DataFile> files) {
    for (DataFile file : files) {
      try {
        handle.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete compaction output {}: {}", file.location(), e.toString());
      }
    }
  }
}
