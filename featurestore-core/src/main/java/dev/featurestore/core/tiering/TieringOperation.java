package dev.featurestore.core.tiering;


import dev.featurestore.ColdCacheStats;
import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import dev.featurestore.Tiering;
import dev.featurestore.TieringListener;
import dev.featurestore.TieringProgress;
import dev.featurestore.TieringResult;
import dev.featurestore.TieringStatus;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.storage.LocalFileCache;
import dev.featurestore.core.storage.TieredFileIO;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves old data files from the hot warehouse to the cold bucket: copy, verify the size, swap the
 * locations with one {@code RewriteFiles} per batch (same data sequence number, so equality deletes
 * still apply), then delete the hot copies. A batch holds files of one source commit only, because
 * a rewrite gives all the files it adds one data sequence number.
 */
final class TieringOperation implements Tiering {
  private static final Logger LOG = LoggerFactory.getLogger(TieringOperation.class);

  private final TableHandle handle;
  private Duration olderThan;
  private int filesPerCommit = DEFAULT_FILES_PER_COMMIT;
  private TieringListener listener = p -> {};
  private boolean used = false;

  /** The store's clock; test hooks: calls before a batch's commit and after it (with the batch index). */
  LongSupplier now;
  IntConsumer beforeCommit = batch -> {};
  IntConsumer afterCommit = batch -> {};
  /** Test hook: lands a batch's rewrite (a test makes the catalog's answer get lost). */
  Consumer<RewriteFiles> commitAction = RewriteFiles::commit;

  TieringOperation(TableHandle handle) {
    this.handle = handle;
    this.now = handle.config().clock()::millis;
  }

  @Override
  public Tiering olderThan(Duration age) {
    InvalidArgumentException.requireNonNull(age, "tier table", "age");
    if (age.isNegative()) {
      throw new InvalidArgumentException("Cannot tier table: age is negative: " + age);
    }
    this.olderThan = age;
    return this;
  }

  @Override
  public Tiering filesPerCommit(int files) {
    if (files < 1) {
      throw new InvalidArgumentException("Cannot tier table: files per commit must be at least 1: " + files);
    }
    this.filesPerCommit = files;
    return this;
  }

  @Override
  public Tiering listener(TieringListener listener) {
    this.listener = InvalidArgumentException.requireNonNull(listener, "tier table", "listener");
    return this;
  }

  /** A data file to move. */
  private record Candidate(DataFile file, String coldLocation, long dataSequenceNumber) {}

  /** What planning found. */
  private record Plan(Snapshot start, List<Candidate> candidates, List<TieringResult.SkippedFile> skipped,
      List<String> hotLeftovers) {}

  @Override
  public TieringResult dryRun() {
    start();
    TieredFileIO io = tieredIO();
    Plan plan = plan(io);
    return new TieringResult(true, plan.candidates().stream().map(c -> c.file().location()).toList(),
        plan.candidates().stream().mapToLong(c -> c.file().fileSizeInBytes()).sum(), List.of(), plan.skipped(), 0);
  }

  @Override
  public TieringResult execute() {
    start();
    TieredFileIO io = tieredIO();
    Plan plan = plan(io);
    long leftovers = deleteHotLeftovers(io, plan.hotLeftovers());
    List<List<Candidate>> batches = batches(plan.candidates());
    List<String> moved = new ArrayList<>();
    List<Long> snapshots = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < batches.size(); i++) {
      List<Candidate> batch = batches.get(i);
      long snapshotId = moveBatch(io, plan.start(), batch, i);
      long batchBytes = batch.stream().mapToLong(c -> c.file().fileSizeInBytes()).sum();
      snapshots.add(snapshotId);
      batch.forEach(c -> moved.add(c.file().location()));
      bytes += batchBytes;
      listener.onBatch(new TieringProgress(i + 1, batches.size(), snapshotId, batch.size(), batchBytes));
    }
    if (!batches.isEmpty()) {
      LOG.info("Tiered table {}: {} files ({} bytes) moved to cold storage in {} commits", handle.id(), moved.size(),
          bytes, snapshots.size());
    }
    if (!moved.isEmpty() || leftovers > 0) {
      handle.record("tiering", snapshots.isEmpty() ? null : snapshots.get(snapshots.size() - 1),
          java.util.Map.of("moved_files", moved.size(), "bytes", bytes, "commits", snapshots.size(),
              "hot_leftovers_deleted", leftovers));
    }
    return new TieringResult(false, moved, bytes, snapshots, plan.skipped(), leftovers);
  }

  @Override
  public TieringStatus status() {
    TieredFileIO io = tieredIO();
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    long hotFiles = 0;
    long hotBytes = 0;
    long coldFiles = 0;
    long coldBytes = 0;
    Snapshot current = table.currentSnapshot();
    if (current != null) {
      for (FileScanTask task : handle.translating("plan files of table " + handle.id(), () -> files(table, current))) {
        if (io.isCold(task.file().location())) {
          coldFiles++;
          coldBytes += task.file().fileSizeInBytes();
        } else {
          hotFiles++;
          hotBytes += task.file().fileSizeInBytes();
        }
      }
    }
    LocalFileCache.Stats cache = io.cacheStats();
    return new TieringStatus(hotFiles, hotBytes, coldFiles, coldBytes, new ColdCacheStats(cache.files(), cache.bytes(),
        cache.maxBytes(), cache.hits(), cache.misses(), cache.bytesFetched(), cache.evictions()));
  }

  private void start() {
    if (used) {
      throw new InvalidStateException("Cannot execute tiering of table " + handle.id() + ": already executed");
    }
    used = true;
    if (olderThan == null) {
      throw new ValidationException("Cannot tier table " + handle.id() + ": no age threshold: set olderThan(age)");
    }
  }

  private TieredFileIO tieredIO() {
    if (handle.io() instanceof TieredFileIO tiered) {
      return tiered;
    }
    throw new ValidationException("Cannot tier table " + handle.id()
        + ": the store has no cold storage: set coldStorage(...) on the store builder");
  }

  private Plan plan(TieredFileIO io) {
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    Snapshot start = table.currentSnapshot();
    if (start == null) {
      return new Plan(null, List.of(), List.of(), List.of());
    }
    TreeMap<Long, Long> commitTimes = new TreeMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      commitTimes.merge(snapshot.sequenceNumber(), snapshot.timestampMillis(), Math::min);
    }
    long cutoff = now.getAsLong() - olderThan.toMillis();
    List<FileScanTask> tasks = handle.translating("plan files of table " + handle.id(), () -> files(table, start));
    Set<String> live = new HashSet<>();
    tasks.forEach(t -> live.add(t.file().location()));
    List<Candidate> candidates = new ArrayList<>();
    List<TieringResult.SkippedFile> skipped = new ArrayList<>();
    List<String> leftovers = new ArrayList<>();
    for (FileScanTask task : tasks) {
      DataFile file = task.file();
      String location = file.location();
      if (io.isCold(location)) {
        io.hotLocation(location).filter(hot -> !live.contains(hot)).filter(hot -> io.hot().newInputFile(hot).exists())
            .ifPresent(leftovers::add);
        continue;
      }
      long sequence = file.dataSequenceNumber() == null ? 0 : file.dataSequenceNumber();
      // the snapshot that added the file, or the first later one if it was expired: never younger than the file
      Map.Entry<Long, Long> added = commitTimes.ceilingEntry(sequence);
      if (added == null || added.getValue() > cutoff) {
        continue;
      }
      Optional<String> cold = io.coldLocation(location);
      if (cold.isEmpty()) {
        skipped.add(new TieringResult.SkippedFile(location, "outside the warehouse: no cold location for it"));
      } else if (hasPositionDeletes(task)) {
        skipped.add(new TieringResult.SkippedFile(location, "position deletes point at it: compact first"));
      } else {
        candidates.add(new Candidate(file, cold.get(), sequence));
      }
    }
    return new Plan(start, candidates, skipped, leftovers);
  }

  private static List<FileScanTask> files(Table table, Snapshot snapshot) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = ScanPlanning.newScan(table, snapshot)
        .includeColumnStats().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  private static boolean hasPositionDeletes(FileScanTask task) {
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.POSITION_DELETES) {
        return true; // position delete files and deletion vectors both
      }
    }
    return false;
  }

  /** Consecutive files of one data sequence number, at most {@code filesPerCommit} per batch. */
  private List<List<Candidate>> batches(List<Candidate> candidates) {
    TreeMap<Long, List<Candidate>> bySequence = new TreeMap<>();
    for (Candidate candidate : candidates) {
      bySequence.computeIfAbsent(candidate.dataSequenceNumber(), k -> new ArrayList<>()).add(candidate);
    }
    List<List<Candidate>> batches = new ArrayList<>();
    for (List<Candidate> group : bySequence.values()) {
      for (int i = 0; i < group.size(); i += filesPerCommit) {
        batches.add(List.copyOf(group.subList(i, Math.min(group.size(), i + filesPerCommit))));
      }
    }
    return batches;
  }

  private long moveBatch(TieredFileIO io, Snapshot start, List<Candidate> batch, int index) {
    List<String> copied = copyAll(io, batch);
    // a random id per batch in the snapshot summary: how an unknown commit outcome is decided
    CommitMarks mark = CommitMarks.create();
    OptionalLong committed;
    try {
      beforeCommit.accept(index);
      committed = handle.commitLocked(() -> commit(handle.table(), start, batch, mark));
    } catch (CommitStateUnknownException e) {
      throw e; // the batch may be committed: its cold copies must stay
    } catch (RuntimeException e) {
      deleteQuietly(io.cold(), copied);
      throw e;
    }
    if (committed.isEmpty()) {
      deleteQuietly(io.cold(), copied);
      throw new CommitConflictException("Cannot tier table " + handle.id()
          + ": commit outcome was unknown and the table shows it did not land; nothing changed, run again");
    }
    afterCommit.accept(index);
    List<String> hot = batch.stream().map(c -> c.file().location()).toList();
    deleteQuietly(io.hot(), hot);
    return committed.getAsLong();
  }

  /** Copies the batch in parallel on the store's workers; on any failure deletes what was copied. */
  private List<String> copyAll(TieredFileIO io, List<Candidate> batch) {
    List<CompletableFuture<String>> copies = new ArrayList<>();
    for (Candidate candidate : batch) {
      copies.add(CompletableFuture.supplyAsync(() -> copy(io, candidate), handle.workers()));
    }
    List<String> copied = new ArrayList<>();
    RuntimeException failure = null;
    for (CompletableFuture<String> copy : copies) {
      try {
        copied.add(copy.join());
      } catch (CompletionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException re ? re : new StorageException(
              "Cannot tier table " + handle.id() + ": copy failed: " + e.getCause(), e.getCause());
        }
      }
    }
    if (failure != null) {
      deleteQuietly(io.cold(), copied);
      throw failure;
    }
    return copied;
  }

  private String copy(TieredFileIO io, Candidate candidate) {
    DataFile file = candidate.file();
    String target = candidate.coldLocation();
    try {
      long written;
      try (SeekableInputStream in = io.hot().newInputFile(file.location(), file.fileSizeInBytes()).newStream();
          PositionOutputStream out = io.cold().newOutputFile(target).createOrOverwrite()) {
        written = ((InputStream) in).transferTo(out);
      }
      long stored = io.cold().newInputFile(target).getLength();
      if (written != file.fileSizeInBytes() || stored != file.fileSizeInBytes()) {
        deleteQuietly(io.cold(), List.of(target));
        throw new StorageException("Cannot tier table " + handle.id() + ": size mismatch after copy: expected "
            + file.fileSizeInBytes() + " bytes, read " + written + ", stored " + stored + ": " + file.location());
      }
      return target;
    } catch (IOException | UncheckedIOException e) {
      deleteQuietly(io.cold(), List.of(target));
      throw new StorageException("Cannot tier table " + handle.id() + ": copy failed: " + Errors.rootMessage(e)
          + ": " + file.location(), e);
    } catch (StorageException e) {
      throw e;
    } catch (RuntimeException e) {
      deleteQuietly(io.cold(), List.of(target));
      RuntimeException translated = Errors.translate(e, "tier table " + handle.id() + ": copy " + file.location());
      throw translated instanceof StorageException ? translated : new StorageException(
          "Cannot tier table " + handle.id() + ": copy failed: " + Errors.rootMessage(e) + ": " + file.location(), e);
    }
  }

  /**
   * One batch's swap, validated from the planned snapshot (a concurrent delete of any of its files,
   * or new position deletes for them, conflict). Empty if the outcome was unknown and reading the
   * table shows the commit did not land.
   */
  private OptionalLong commit(Table table, Snapshot start, List<Candidate> batch, CommitMarks mark) {
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(start.snapshotId());
    if (batch.get(0).dataSequenceNumber() > 0) {
      rewrite.dataSequenceNumber(batch.get(0).dataSequenceNumber());
    }
    for (Candidate candidate : batch) {
      DataFile hot = candidate.file();
      DataFile cold = DataFiles.builder(table.specs().get(hot.specId())).copy(hot).withPath(candidate.coldLocation())
          .build();
      rewrite.deleteFile(hot);
      rewrite.addFile(cold);
    }
    mark.mark(rewrite);
    try {
      commitAction.accept(rewrite);
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new CommitConflictException(
          "Cannot tier table " + handle.id() + ": a concurrent commit conflicts: " + e.getMessage(), e);
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      LOG.warn("Tiering commit of table {} has an unknown outcome: reading the table to resolve it", handle.id());
      try {
        table.refresh();
      } catch (RuntimeException readFailed) {
        e.addSuppressed(readFailed);
        throw Errors.translate(e, "tier table " + handle.id());
      }
      OptionalLong landed = find(table, start, mark);
      LOG.warn("Tiering commit of table {} {}", handle.id(), landed.isPresent() ? "landed" : "did not land");
      return landed;
    }
    table.refresh();
    OptionalLong found = find(table, start, mark);
    return found.isPresent() ? found : OptionalLong.of(table.currentSnapshot().snapshotId());
  }

  /**
   * The snapshot after {@code start} that carries this batch's mark, if any. (Unlike
   * {@link CommitMarks#committedSnapshotId}, "not found" is an answer here: the commit did not land.)
   */
  private static OptionalLong find(Table table, Snapshot start, CommitMarks mark) {
    for (Snapshot s = table.currentSnapshot(); s != null && s.snapshotId() != start.snapshotId();
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (mark.id().equals(s.summary().get(mark.key()))) {
        return OptionalLong.of(s.snapshotId());
      }
    }
    return OptionalLong.empty();
  }

  private long deleteHotLeftovers(TieredFileIO io, List<String> leftovers) {
    long deleted = 0;
    for (String location : leftovers) {
      try {
        io.hot().deleteFile(location);
        deleted++;
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete hot leftover {}: {}", location, e.toString());
      }
    }
    if (deleted > 0) {
      LOG.info("Tiering of table {}: deleted {} hot copies left by an interrupted run", handle.id(), deleted);
    }
    return deleted;
  }

  private void deleteQuietly(FileIO io, List<String> locations) {
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete {} after tiering of table {}: {}", location, handle.id(), e.toString());
      }
    }
  }
}
