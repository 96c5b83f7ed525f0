package dev.featurestore.cdc;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import dev.featurestore.core.storage.ProcessFileLock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log of one shard: append-only segment files {@code wal-<first seq>.log} in
 * {@code <dir>/<shard>/}. A segment holds the entries of one batch (the pipeline rolls to a new
 * segment when it seals a batch), so a segment is deleted whole once its last entry is committed
 * to every target table.
 *
 * <p>Records are framed as {@link WalRecordCodec} says. On recovery a torn tail of
 * the last segment (an incomplete last record: a write cut short by process death, never
 * acknowledged) is cut off; a bad record followed by valid ones is handled as the
 * {@link WalRecovery} mode says (by default the open fails).
 *
 * <p>Records are copied into a memory mapping of the segment file ({@link WalSegmentFile}): in
 * the page cache on return, without a system call per record. A background thread
 * ({@code featurestore-cdc-wal-<shard>}) zero-fills the next segment file ahead (a spare, renamed
 * when the segment opens) and, under {@link FsyncPolicy#EVERY_BATCH}, forces each sealed segment
 * and the directory, so the thread that seals a batch does not wait for the disk; a batch is
 * committed only after its segment was forced ({@link #awaitSynced}). An all-zero tail of a
 * segment is space not written yet (a process killed before the segment was sealed and cut to
 * its length), not a damaged record.
 *
 * <p>A lock file keeps a second pipeline (in this or another process) off the same shard.
 * Not thread-safe, except {@link #awaitSynced}: the pipeline calls it under its accept lock.
 */
final class WriteAheadLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
  private static final String PREFIX = "wal-";
  private static final String SUFFIX = ".log";
  private static final String SPARE_PREFIX = "spare-";
  private static final String SPARE_SUFFIX = ".tmp";
  /** Smallest and largest zero-filled size of a new segment; it follows the size of the last batch's. */
  private static final long MIN_SEGMENT_BYTES = 1 << 20;
  private static final long MAX_SEGMENT_BYTES = 64L << 20;

  private final Path dir;
  private final FsyncPolicy fsync;
  private final Hooks hooks;

  private final ProcessFileLock lock;
  /** Closed segments: path to the highest sequence id in it. */
  private final TreeMap<Long, Segment> segments = new TreeMap<>();
  private final WalRecordCodec codec = new WalRecordCodec();
  private final String shard;
  private WalSegmentFile current;
  private Segment currentSegment;
  private long bytesWritten;
  /** Zero-filled size of the next segment file. */
  private long segmentBytes = MIN_SEGMENT_BYTES;
  /** Spares, the syncs of sealed segments and clean-up, one at a time. */
  private final ExecutorService background;
  private Future<WalSegmentFile> spare;
  private long spares;

  /** The background syncs, read by the flusher: segments sealed and forced through these sequences. */
  private final Object syncs = new Object();
  private long sealedThrough;
  private long syncedThrough;

  private static final class Segment {
    final Path path;
    final long firstSeq;
    long lastSeq;

    Segment(Path path, long firstSeq, long lastSeq) {
      this.path = path;
      this.firstSeq = firstSeq;
      this.lastSeq = lastSeq;
    }
  }

  WriteAheadLog(Path root, String shard, FsyncPolicy fsync, Hooks hooks) {
    this.dir = root.resolve(shard);
    this.shard = shard;
    this.fsync = fsync;
    this.hooks = hooks;
    try {
      Files.createDirectories(dir);
      lock = ProcessFileLock.tryAcquire(dir.resolve("lock"), ProcessFileLock.Open.CREATE)
          .orElseThrow(() -> inUse(shard, dir));
      try {
        deleteSpares();
      } catch (IOException | RuntimeException e) {
        lock.close(); // a log that does not open keeps no pipeline off the shard
        throw e;
      }
      background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "featurestore-cdc-wal-" + shard);
        t.setDaemon(true);
        return t;
      });
    } catch (IOException e) {
      throw new StorageException("Cannot open CDC write-ahead log: " + dir + ": " + e.getMessage(), e);
    }
  }

  private static InvalidStateException inUse(String shard, Path dir) {
    return new InvalidStateException("Cannot open CDC pipeline: shard " + shard + " is in use by another pipeline: " + dir);
  }

  Path directory() {
    return dir;
  }

  /**
   * Reads every segment, in sequence order. A torn tail (an incomplete or bad last record of the
   * last segment, with no valid record after it) is cut off; any other bad record is handled as
   * {@code mode} says.
   *
   * @throws WalCorruptionException under {@link WalRecovery#TOLERATE_TORN_TAIL} if a bad record is
   *     followed by valid ones (nothing is changed on disk)
   */
  List<Logged> recover(WalRecovery mode) {
    List<Path> files = segments(dir, "recover");
    List<SegmentScan> scans = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      scans.add(scan(files.get(i)));
    }
    // check everything before changing anything
    for (int i = 0; i < scans.size(); i++) {
      SegmentScan scan = scans.get(i);
      boolean last = i == scans.size() - 1;
      if (scan.firstProblem >= 0 && (scan.validAfterProblem || !last) && mode == WalRecovery.TOLERATE_TORN_TAIL) {
        throw new WalCorruptionException("Cannot recover CDC write-ahead log: corrupt record followed by valid records"
            + " (not a torn tail); open with walRecovery(POINT_IN_TIME) or walRecovery(SKIP_CORRUPTED) to proceed: "
            + scan.problem + " at offset " + scan.firstProblem + ": " + scan.file, scan.file.toString(), scan.firstProblem);
      }
    }
    List<Logged> entries = new ArrayList<>();
    boolean stopped = false;
    for (int i = 0; i < scans.size(); i++) {
      SegmentScan scan = scans.get(i);
      Path file = scan.file;
      if (stopped) {
        LOG.warn("Dropping CDC write-ahead log segment {} after a corrupt record (POINT_IN_TIME recovery): {} records",
            file, scan.records.size());
        deleteQuietly(file);
        continue;
      }
      List<Frame> keep = scan.records;
      if (scan.firstProblem >= 0) {
        boolean tornTail = !scan.validAfterProblem && i == scans.size() - 1;
        if (tornTail) {
          LOG.warn("Cutting off the unacknowledged tail of {} at offset {}: {}", file, scan.firstProblem, scan.problem);
          keep = scan.recordsBefore(scan.firstProblem);
        } else if (mode == WalRecovery.POINT_IN_TIME) {
          LOG.warn("Cutting CDC write-ahead log {} at the corrupt record at offset {} ({}): POINT_IN_TIME recovery",
              file, scan.firstProblem, scan.problem);
          keep = scan.recordsBefore(scan.firstProblem);
          stopped = true;
        } else {
          for (long offset : scan.badOffsets) {
            LOG.warn("Skipping the corrupt CDC write-ahead log record at offset {} of {}: SKIP_CORRUPTED recovery", offset, file);
          }
          skipped += scan.badOffsets.size();
        }
        rewrite(scan, keep);
      }
      int before = entries.size();
      for (Frame f : keep) {
        entries.add(f.logged);
      }
      if (entries.size() == before) {
        deleteQuietly(file);
        continue;
      }
      segments.put(firstSeqOf(file), new Segment(file, entries.get(before).seq(), entries.get(entries.size() - 1).seq()));
    }
    return entries;
  }

  /** Bad records skipped by the last {@link #recover} (SKIP_CORRUPTED only). */
  long skippedRecords() {
    return skipped;
  }

  private long skipped;

  /** A valid record: its offset, its whole frame and its entry. */
  private record Frame(long offset, byte[] bytes, Logged logged) {}

  /** What a segment holds: its valid records, and where (if anywhere) the first bad one starts. */
  private static final class SegmentScan {
    final Path file;
    final List<Frame> records = new ArrayList<>();
    final List<Long> badOffsets = new ArrayList<>();
    long firstProblem = -1;
    String problem;
    boolean validAfterProblem;

    SegmentScan(Path file) {
      this.file = file;
    }

    List<Frame> recordsBefore(long offset) {
      List<Frame> before = new ArrayList<>();
      for (Frame f : records) {
        if (f.offset() < offset) {
          before.add(f);
        }
      }
      return before;
    }
  }

  private SegmentScan scan(Path file) {
    SegmentScan scan = new SegmentScan(file);
    ByteBuffer all;
    try {
      all = ByteBuffer.wrap(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new StorageException("Cannot recover CDC write-ahead log: " + file + ": " + e.getMessage(), e);
    }
    int pos = 0;
    int size = all.limit();
    while (pos < size) {
      if (all.get(pos) == 0 && WalSegmentFile.zeroFrom(all, pos)) {
        break; // zero-filled space the killed process had not written yet
      }
      String problem = WalRecordCodec.problemAt(all, pos);
      Logged logged = null;
      byte[] frame = null;
      if (problem == null) {
        frame = new byte[WalRecordCodec.HEADER_BYTES + all.getInt(pos)];
        all.get(pos, frame);
        try {
          logged = WalRecordCodec.decode(ByteBuffer.wrap(frame, WalRecordCodec.HEADER_BYTES,
              frame.length - WalRecordCodec.HEADER_BYTES).slice());
        } catch (RuntimeException e) {
          problem = "undecodable record";
        }
      }
      if (problem == null) {
        scan.records.add(new Frame(pos, frame, logged));
        if (scan.firstProblem >= 0) {
          scan.validAfterProblem = true;
        }
        pos += frame.length;
        continue;
      }
      if (scan.firstProblem < 0) {
        scan.firstProblem = pos;
        scan.problem = problem;
      }
      scan.badOffsets.add((long) pos);
      // find the next valid record by its framing, one byte at a time
      int next = pos + 1;
      while (next < size && WalRecordCodec.problemAt(all, next) != null) {
        next++;
      }
      pos = next;
    }
    return scan;
  }

  /** Replaces a segment by its valid records {@code keep} (a new file, synced, moved over the old one). */
  private void rewrite(SegmentScan scan, List<Frame> keep) {
    Path temp = scan.file.resolveSibling(scan.file.getFileName() + ".rewrite");
    try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE)) {
      for (Frame f : keep) {
        ByteBuffer b = ByteBuffer.wrap(f.bytes());
        while (b.hasRemaining()) {
          out.write(b);
        }
      }
      out.force(true);
      Files.move(temp, scan.file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      syncDirectory();
    } catch (IOException e) {
      throw new StorageException("Cannot recover CDC write-ahead log: cannot rewrite " + scan.file + ": " + e.getMessage(), e);
    }
  }

  /** Appends one entry; it is with the operating system (and on disk under EVERY_ENTRY) on return. */
  void append(Logged logged) {
    try {
      if (current == null) {
        open(logged.seq());
      }
      int size;
      if (hooks == Hooks.NONE) {
        size = codec.prepare(logged);
        ByteBuffer room = current.room(size);
        try {
          codec.writeTo(room); // straight into the mapping
        } catch (InternalError e) {
          // a fault in the mapped memory (the JVM's report of SIGBUS): the file cannot be written
          current.rewind();
          throw new IOException("cannot write the mapped segment: " + e.getMessage(), e);
        }
        current.advance(size);
      } else {
        ByteBuffer frame = codec.encode(logged);
        size = frame.limit();
        if (size > 16) {
          frame.limit(size / 2);
          current.put(frame);
          hooks.at("wal.torn");
          frame.limit(size);
        }
        current.put(frame);
      }
      bytesWritten += size;
      currentSegment.lastSeq = logged.seq();
      if (fsync == FsyncPolicy.EVERY_ENTRY) {
        current.force();
      }
    } catch (IOException e) {
      throw new StorageException("Cannot append to CDC write-ahead log: " + dir + ": " + e.getMessage(), e);
    }
  }

  private void open(long firstSeq) throws IOException {
    Path path = dir.resolve(String.format("%s%020d%s", PREFIX, firstSeq, SUFFIX));
    WalSegmentFile file = takeSpare();
    if (file != null) {
      try {
        file.moveTo(path);
      } catch (IOException e) {
        closeQuietly(file);
        deleteQuietly(file.path());
        file = null;
      }
    }
    if (file == null) {
      file = WalSegmentFile.create(path, segmentBytes);
    }
    current = file;
    currentSegment = new Segment(path, firstSeq, firstSeq - 1);
    if (fsync == FsyncPolicy.EVERY_ENTRY) {
      syncDirectory(); // each entry is on disk on return: so is the file's name
    }
    spare = background.submit(() -> WalSegmentFile.create(dir.resolve(SPARE_PREFIX + (++spares) + SPARE_SUFFIX),
        segmentBytes));
  }

  /** The spare segment file the background thread zero-filled (waiting for it if need be), or null if that failed. */
  private WalSegmentFile takeSpare() {
    Future<WalSegmentFile> ready = spare;
    spare = null;
    if (ready == null) {
      return null;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return ready.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException | CancellationException e) {
      LOG.debug("CDC write-ahead log {}: no spare segment: {}", dir, e.toString());
      return null;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Closes and deletes a spare that will not be used (on the background thread). */
  private static void dropSpare(Future<WalSegmentFile> spare) {
    try {
      WalSegmentFile file = spare.get();
      closeQuietly(file);
      deleteQuietly(file.path());
    } catch (ExecutionException | CancellationException | InterruptedException e) {
      // none was made
    }
  }

  /**
   * Runs {@code task} on the log's background thread (after the work queued before it), or here
   * once the log is closed. Thread-safe. For clean-up off the committing thread: {@link #close}
   * waits for it.
   */
  void later(Runnable task) {
    try {
      background.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      task.run();
    }
  }

  /**
   * Seals the current segment: cuts it to its records, and closes it (forcing it and the directory
   * first under EVERY_BATCH) on the background thread; the next append opens a new one.
   */
  void roll() {
    if (current == null) {
      return;
    }
    WalSegmentFile file = current;
    Segment sealed = currentSegment;
    current = null;
    currentSegment = null;
    if (sealed.lastSeq < sealed.firstSeq) {
      closeQuietly(file);
      deleteQuietly(sealed.path);
      return;
    }
    try {
      file.truncate();
    } catch (IOException e) {
      // the zero-filled tail stays: recovery reads it as unwritten space
      LOG.warn("Cannot cut CDC write-ahead log segment {} to its length: {}", sealed.path, e.toString());
    }
    segments.put(sealed.firstSeq, sealed);
    segmentBytes = Math.min(MAX_SEGMENT_BYTES, Math.max(MIN_SEGMENT_BYTES, roundUp(file.length() + file.length() / 4)));
    if (fsync != FsyncPolicy.EVERY_BATCH) {
      background.execute(() -> closeQuietly(file));
      return;
    }
    synchronized (syncs) {
      sealedThrough = sealed.lastSeq;
    }
    background.execute(() -> {
      try {
        file.force();
        syncDirectory();
      } catch (IOException | RuntimeException e) {
        // the batch is committed all the same: the table then holds what the log could not keep
        LOG.warn("Cannot force CDC write-ahead log segment {} to disk: {}", sealed.path, e.toString());
      } finally {
        closeQuietly(file);
        synchronized (syncs) {
          syncedThrough = Math.max(syncedThrough, sealed.lastSeq);
          syncs.notifyAll();
        }
      }
    });
  }

  /**
   * Waits until the sealed segments holding sequences up to {@code seq} are forced to disk (under
   * EVERY_BATCH; at once under the other policies). Thread-safe.
   */
  void awaitSynced(long seq) {
    boolean interrupted = false;
    synchronized (syncs) {
      while (syncedThrough < Math.min(seq, sealedThrough)) {
        try {
          syncs.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static long roundUp(long bytes) {
    long mb = 1 << 20;
    return (bytes + mb - 1) / mb * mb;
  }

  private static void closeQuietly(WalSegmentFile file) {
    try {
      file.close();
    } catch (IOException e) {
      LOG.warn("Cannot close CDC write-ahead log segment {}: {}", file.path(), e.toString());
    }
  }

  private void deleteSpares() throws IOException {
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, SPARE_PREFIX + "*" + SPARE_SUFFIX)) {
      for (Path p : stream) {
        deleteQuietly(p);
      }
    }
  }

  /** Deletes every closed segment whose entries are all at or below {@code committedSeq}. */
  int deleteThrough(long committedSeq) {
    List<Path> files = detachThrough(committedSeq);
    delete(files);
    return files.size();
  }

  /**
   * Forgets every closed segment whose entries are all at or below {@code committedSeq} and returns
   * their files, for the caller to {@link #delete} outside its lock.
   */
  List<Path> detachThrough(long committedSeq) {
    List<Path> files = new ArrayList<>();
    Iterator<Map.Entry<Long, Segment>> it = segments.entrySet().iterator();
    while (it.hasNext()) {
      Segment segment = it.next().getValue();
      if (segment.lastSeq > committedSeq) {
        break;
      }
      it.remove();
      files.add(segment.path);
    }
    return files;
  }

  /**
   * Deletes committed segment files. One that cannot be deleted stays on disk until the next open,
   * which finds its entries committed and deletes it then.
   */
  static void delete(List<Path> files) {
    for (Path file : files) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        LOG.warn("Cannot delete committed CDC write-ahead log segment {}: {}", file, e.toString());
      }
    }
  }

  /** Segments on disk (closed plus the open one). */
  int segmentCount() {
    return segments.size() + (current == null ? 0 : 1);
  }

  long bytesWritten() {
    return bytesWritten;
  }

  Optional<Long> highestLoggedSequence() {
    if (currentSegment != null && currentSegment.lastSeq >= currentSegment.firstSeq) {
      return Optional.of(currentSegment.lastSeq);
    }
    return segments.isEmpty() ? Optional.empty() : Optional.of(segments.lastEntry().getValue().lastSeq);
  }

  /** Cuts the open segment to its records (forcing it unless the policy is NONE), finishes the background work, deletes the spare. */
  @Override
  public void close() {
    if (current != null) {
      WalSegmentFile file = current;
      current = null;
      try {
        file.truncate();
        if (fsync != FsyncPolicy.NONE) {
          file.force();
        }
      } catch (IOException e) {
        LOG.warn("Cannot close CDC write-ahead log {}: {}", dir, e.toString());
      } finally {
        closeQuietly(file);
      }
      if (currentSegment.lastSeq >= currentSegment.firstSeq) {
        segments.put(currentSegment.firstSeq, currentSegment);
      } else {
        deleteQuietly(currentSegment.path);
      }
      currentSegment = null;
    }
    Future<WalSegmentFile> left = spare;
    spare = null;
    if (left != null) {
      background.execute(() -> dropSpare(left));
    }
    background.shutdown();
    boolean interrupted = false;
    while (true) {
      try {
        if (background.awaitTermination(1, TimeUnit.MINUTES)) {
          break;
        }
        LOG.warn("CDC write-ahead log {}: still waiting for its background thread", dir);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    try {
      lock.close();
    } catch (IOException e) {
      LOG.warn("Cannot release CDC write-ahead log lock {}: {}", dir, e.toString());
    }
  }

  private void syncDirectory() {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // not every platform can sync a directory; the segment itself is synced
    }
  }

  /** The segment files of one shard's log directory, by first sequence id ({@code verb} names the caller in errors). */
  static List<Path> segments(Path shardDir, String verb) {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(shardDir, PREFIX + "*" + SUFFIX)) {
      stream.forEach(files::add);
    } catch (IOException e) {
      throw new StorageException("Cannot " + verb + " CDC write-ahead log: " + shardDir + ": " + e.getMessage(), e);
    }
    files.sort((a, b) -> Long.compare(firstSeqOf(a), firstSeqOf(b)));
    return files;
  }

  /** The first sequence id a segment holds, from its name {@code wal-<first seq>.log}. */
  static long firstSeqOf(Path file) {
    String name = file.getFileName().toString();
    return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("Cannot delete {}: {}", file, e.toString());
    }
  }
}
