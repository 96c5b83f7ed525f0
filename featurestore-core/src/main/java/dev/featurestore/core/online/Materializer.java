package dev.featurestore.core.online;

import dev.featurestore.OnlineMaterialization.Mode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Brings a view from the snapshot it reflects to the table's current one, in one write transaction
 * of the view's file.
 *
 * <p>Incremental, snapshot by snapshot along the current branch: rows of the added data files are
 * upserted (the higher event time wins, then the later commit). A removed data file, or a data file
 * that a new delete file applies to, may have held a key's latest row: each key whose entry is one
 * of that file's rows is recomputed at the end from the table's current snapshot (deletes applied).
 * Keys whose entry is not in such a file cannot change by the removal. So an incremental run gives
 * what a rebuild gives. Not safe, and so a rebuild: the view's snapshot is not an ancestor of the
 * current one (rollback, another branch), history in between expired or its files gone, delete
 * files removed (their rows would come back), a feature dropped, or more keys to recompute than a
 * rebuild costs.
 */
final class Materializer {
  private static final int MAX_RECOMPUTE = 100_000;
  private static final int BATCH = 2048;

  record Outcome(Mode mode, String reason, Optional<Long> from, Optional<Snapshot> to, long rowsRead, long keysWritten) {}

  /** Thrown inside an incremental run that turns out not to be safe; the run rolls back and rebuilds. */
  private static final class Unsafe extends Exception {
    Unsafe(String reason) {
      super(reason, null, false, false);
    }
  }

  private final Table table;
  private final ViewDatabase db;
  private final ViewLayout layout;
  private final ExecutorService workers;
  private final Hooks hooks;
  private final java.util.function.LongSupplier nowMillis;
  private final AtomicLong rowsRead = new AtomicLong();

  Materializer(Table table, ViewDatabase db, ViewLayout layout, ExecutorService workers, Hooks hooks,
      java.util.function.LongSupplier nowMillis) {
    this.table = table;
    this.db = db;
    this.layout = layout;
    this.workers = workers;
    this.hooks = hooks;
    this.nowMillis = nowMillis;
  }

  /** Runs on a refreshed table; the caller holds the view's materialization lock. */
  Outcome run(boolean full) throws SQLException {
    Connection c = db.writer();
    rowsRead.set(0);
    ViewWriter.begin(c);
    boolean began = true;
    try {
      ViewDatabase.Meta meta = db.meta().orElseThrow();
      Optional<Long> from = meta.snapshotId();
      Snapshot current = table.currentSnapshot();
      if (current == null) {
        ViewWriter.rollback(c);
        began = false;
        return new Outcome(Mode.UP_TO_DATE, "the table has no snapshot", from, Optional.empty(), 0, 0);
      }
      Schema schema = schemaOf(current);
      layout.check(schema, "materialize online view");
      String reason = full ? "rebuild asked for" : whyNotIncremental(meta, current, schema);
      if (reason == null && from.get() == current.snapshotId()) {
        Map<Integer, Types.NestedField> columns = columns(schema);
        if (!sameColumns(columns)) {
          ViewWriter.writer(c, layout, false).commit(current.snapshotId(), current.sequenceNumber(),
              current.timestampMillis(), meta.materializedMillis(), columns);
        } else {
          ViewWriter.rollback(c);
        }
        began = false;
        return new Outcome(Mode.UP_TO_DATE, "at the current snapshot", from, Optional.of(current), 0, 0);
      }
      if (reason == null) {
        ViewWriter writer = ViewWriter.writer(c, layout, false);
        try {
          incremental(writer, from.get(), current, schema);
          hooks.at("materialize.before-commit");
          writer.commit(current.snapshotId(), current.sequenceNumber(), current.timestampMillis(), nowMillis.getAsLong(),
              columns(schema));
          began = false;
          return new Outcome(Mode.INCREMENTAL, "appends and row changes since the view's snapshot", from,
              Optional.of(current), rowsRead.get(), writer.written());
        } catch (Unsafe e) {
          writer.close(); // rolls back
          reason = e.getMessage();
          ViewWriter.begin(c);
        }
      }
      ViewWriter writer = ViewWriter.writer(c, layout, true);
      try {
        rebuild(writer, current, schema);
        hooks.at("materialize.before-commit");
        writer.commit(current.snapshotId(), current.sequenceNumber(), current.timestampMillis(), nowMillis.getAsLong(),
            columns(schema));
        began = false;
        return new Outcome(Mode.FULL, reason, from, Optional.of(current), rowsRead.get(), writer.written());
      } finally {
        writer.close();
      }
    } finally {
      if (began) {
        ViewWriter.rollback(c);
      }
    }
  }

  private Schema schemaOf(Snapshot snapshot) {
    Integer id = snapshot.schemaId();
    Schema schema = id == null ? null : table.schemas().get(id);
    return schema == null ? table.schema() : schema;
  }

  /** The served columns: the features still in the snapshot's schema, named as the table names them now. */
  private Map<Integer, Types.NestedField> columns(Schema snapshotSchema) {
    Map<Integer, Types.NestedField> columns = new LinkedHashMap<>();
    for (int id : layout.presentFeatures(snapshotSchema)) {
      Types.NestedField now = table.schema().findField(id);
      columns.put(id, now != null ? now : snapshotSchema.findField(id));
    }
    return columns;
  }

  private boolean sameColumns(Map<Integer, Types.NestedField> columns) throws SQLException {
    Map<Integer, String[]> stored = db.columns(db.writer());
    if (!stored.keySet().equals(columns.keySet())) {
      return false;
    }
    for (Map.Entry<Integer, Types.NestedField> e : columns.entrySet()) {
      String[] s = stored.get(e.getKey());
      if (!s[0].equals(e.getValue().name()) || !s[1].equals(e.getValue().type().toString())) {
        return false;
      }
    }
    return true;
  }

  /** Why an incremental run is not safe from the view's state, or null if it may be. */
  private String whyNotIncremental(ViewDatabase.Meta meta, Snapshot current, Schema schema) throws SQLException {
    if (meta.snapshotId().isEmpty()) {
      return "never materialized";
    }
    long from = meta.snapshotId().get();
    if (from == current.snapshotId()) {
      Set<Integer> stored = db.columns(db.writer()).keySet();
      return stored.isEmpty() || stored.equals(new HashSet<>(layout.presentFeatures(schema))) ? null
          : "a feature was dropped from the table";
    }
    if (table.snapshot(from) == null) {
      return "the view's snapshot " + from + " is expired";
    }
    if (!SnapshotUtil.isAncestorOf(table, current.snapshotId(), from)) {
      return "the view's snapshot " + from + " is not an ancestor of the current snapshot " + current.snapshotId()
          + " (rollback or another branch)";
    }
    if (!db.columns(db.writer()).keySet().equals(new HashSet<>(layout.presentFeatures(schema)))) {
      return "a feature was dropped from the table";
    }
    return null;
  }

  private void rebuild(ViewWriter writer, Snapshot current, Schema schema) throws SQLException {
    RowSource source = new RowSource(table, layout, schema);
    List<FileScanTask> tasks = RowSource.plan(table, current.snapshotId(), Expressions.alwaysTrue());
    readParallel(tasks, source, writer);
  }

  private record Batch(List<Object[]> rows, long sequenceNumber) {}

  /** Reads tasks on the store's workers and writes their rows on this thread, oldest data first where they tie. */
  private void readParallel(List<FileScanTask> tasks, RowSource source, ViewWriter writer) throws SQLException {
    Batch done = new Batch(List.of(), -1);
    BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(64);
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<Future<?>> futures = new ArrayList<>();
    for (FileScanTask task : tasks) {
      long seq = RowSource.sequenceOf(task.file(), 0);
      futures.add(workers.submit(() -> {
        try {
          List<Object[]>[] buffer = new List[] {new ArrayList<>(BATCH)};
          source.readTask(task, row -> {
            buffer[0].add(row);
            if (buffer[0].size() >= BATCH) {
              put(queue, new Batch(buffer[0], seq), cancelled);
              buffer[0] = new ArrayList<>(BATCH);
            }
          });
          put(queue, new Batch(buffer[0], seq), cancelled);
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
        } finally {
          put(queue, done, cancelled);
        }
      }));
    }
    int finished = 0;
    long progress = 0;
    try {
      while (finished < tasks.size()) {
        Batch batch = take(queue);
        if (batch == done) {
          finished++;
          continue;
        }
        if (failure.get() != null) {
          throw failure.get();
        }
        for (Object[] row : batch.rows()) {
          writer.upsert(row, batch.sequenceNumber());
        }
        rowsRead.addAndGet(batch.rows().size());
        if ((progress += batch.rows().size()) >= 10_000) {
          progress = 0;
          hooks.at("materialize.progress");
        }
      }
      if (failure.get() != null) {
        throw failure.get();
      }
    } finally {
      cancelled.set(true);
      queue.clear();
      for (Future<?> f : futures) {
        f.cancel(false);
      }
    }
  }

  private static void put(BlockingQueue<Batch> queue, Batch batch, AtomicBoolean cancelled) {
    try {
      while (!cancelled.get() && !queue.offer(batch, 100, TimeUnit.MILLISECONDS)) {
        // the writer is behind
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Batch take(BlockingQueue<Batch> queue) {
    try {
      return queue.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot materialize online view: interrupted", e);
    }
  }

  private void incremental(ViewWriter writer, long from, Snapshot current, Schema schema) throws SQLException, Unsafe {
    RowSource source = new RowSource(table, layout, schema);
    List<Snapshot> chain = new ArrayList<>();
    for (Snapshot s : SnapshotUtil.ancestorsBetween(current.snapshotId(), from, table::snapshot)) {
      chain.add(s);
    }
    if (chain.isEmpty() || chain.get(chain.size() - 1).parentId() == null
        || chain.get(chain.size() - 1).parentId() != from) {
      throw new Unsafe("history between the view's snapshot " + from + " and " + current.snapshotId() + " is expired");
    }
    java.util.Collections.reverse(chain);
    Set<Object> recompute = new HashSet<>();
    for (Snapshot snapshot : chain) {
      apply(snapshot, source, writer, recompute);
      if (recompute.size() > MAX_RECOMPUTE) {
        throw new Unsafe("more than " + MAX_RECOMPUTE + " keys lost their latest row: a rebuild is cheaper");
      }
    }
    if (!recompute.isEmpty()) {
      for (Object key : recompute) {
        writer.delete(key);
      }
      Types.NestedField key = schema.findField(layout.keyId());
      List<Object> literals = new ArrayList<>();
      for (Object k : recompute) {
        literals.add(literal(k, key.type()));
      }
      Expression filter = Expressions.in(key.name(), literals);
      for (FileScanTask task : RowSource.plan(table, current.snapshotId(), filter)) {
        long seq = RowSource.sequenceOf(task.file(), 0);
        readRows(() -> source.readTask(task, row -> {
          if (recompute.contains(row[0])) {
            upsert(writer, row, seq);
          }
        }));
      }
    }
  }

  private void apply(Snapshot snapshot, RowSource source, ViewWriter writer, Set<Object> recompute)
      throws SQLException, Unsafe {
    long seq = snapshot.sequenceNumber();
    List<DataFile> added = new ArrayList<>();
    List<DataFile> candidates = new ArrayList<>();
    List<DeleteFile> addedDeletes = new ArrayList<>();
    try {
      snapshot.addedDataFiles(table.io()).forEach(f -> added.add(f.copyWithoutStats()));
      snapshot.removedDataFiles(table.io()).forEach(f -> candidates.add(f.copyWithoutStats()));
      snapshot.addedDeleteFiles(table.io()).forEach(addedDeletes::add);
      List<DeleteFile> unexplained = new ArrayList<>();
      for (DeleteFile removed : snapshot.removedDeleteFiles(table.io())) {
        if (!replaced(removed, addedDeletes, candidates)) {
          unexplained.add(removed);
        }
      }
      if (!unexplained.isEmpty() && !ofRemovedFiles(snapshot, unexplained)) {
        throw new Unsafe("snapshot " + snapshot.snapshotId() + " (" + snapshot.operation()
            + ") removed delete files: their rows could come back");
      }
    } catch (RuntimeException e) {
      throw new Unsafe("cannot read the manifests of snapshot " + snapshot.snapshotId() + ": " + e.getMessage());
    }
    added.sort(Comparator.comparing(DataFile::location));
    for (DataFile file : added) {
      long fileSeq = RowSource.sequenceOf(file, seq);
      readRowsSafely(file, () -> source.readFile(file, row -> upsert(writer, row, fileSeq)));
    }
    if (!addedDeletes.isEmpty()) {
      Set<String> deleteLocations = new HashSet<>();
      addedDeletes.forEach(d -> deleteLocations.add(d.location()));
      Set<String> seen = new HashSet<>();
      candidates.forEach(f -> seen.add(f.location()));
      try {
        for (FileScanTask task : RowSource.plan(table, snapshot.snapshotId(), Expressions.alwaysTrue())) {
          if (!seen.contains(task.file().location())
              && task.deletes().stream().anyMatch(d -> deleteLocations.contains(d.location()))) {
            seen.add(task.file().location());
            candidates.add(task.file());
          }
        }
      } catch (RuntimeException e) {
        throw new Unsafe("cannot plan snapshot " + snapshot.snapshotId() + ": " + e.getMessage());
      }
    }
    for (DataFile file : candidates) {
      long fileSeq = RowSource.sequenceOf(file, seq);
      readRowsSafely(file, () -> source.readFile(file, row -> {
        try {
          Optional<long[]> entry = writer.entry(row[0]);
          if (entry.isPresent() && entry.get()[0] == (Long) row[1] && entry.get()[1] == fileSeq) {
            recompute.add(row[0]);
          }
        } catch (SQLException e) {
          throw new SqlFailure(e);
        }
      }));
    }
  }

  /**
   * True when a removed delete file cannot bring rows back: a deletion vector replaced in the same
   * snapshot by a new vector of the same data file (format 3 requires the new one to hold the old
   * positions: the merge-on-read current state does this every commit), or one whose data file
   * was removed too. The data file is then a candidate already (its new vector was added).
   */
  private static boolean replaced(DeleteFile removed, List<DeleteFile> addedDeletes, List<DataFile> removedData) {
    String target = removed.referencedDataFile();
    if (removed.format() != org.apache.iceberg.FileFormat.PUFFIN || target == null) {
      return false;
    }
    return addedDeletes.stream().anyMatch(d -> d.format() == org.apache.iceberg.FileFormat.PUFFIN
            && target.equals(d.referencedDataFile()))
        || removedData.stream().anyMatch(f -> f.location().equals(target));
  }

  /**
   * True when every one of {@code removed} points at one data file that is not in the table at
   * {@code snapshot}: a compaction's cleanup of the deletion vectors of the files it removed
   * earlier (they applied to no row any more).
   */
  private boolean ofRemovedFiles(Snapshot snapshot, List<DeleteFile> removed) {
    Set<String> targets = new HashSet<>();
    for (DeleteFile delete : removed) {
      String target = org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(delete);
      if (target == null) {
        return false;
      }
      targets.add(target);
    }
    for (FileScanTask task : RowSource.plan(table, snapshot.snapshotId(), Expressions.alwaysTrue())) {
      if (targets.contains(task.file().location())) {
        return false;
      }
    }
    return true;
  }

  private void upsert(ViewWriter writer, Object[] row, long seq) {
    try {
      writer.upsert(row, seq);
      if (rowsRead.incrementAndGet() % 10_000 == 0) {
        hooks.at("materialize.progress");
      }
    } catch (SQLException e) {
      throw new SqlFailure(e);
    }
  }

  private static Object literal(Object stored, Type type) {
    switch (type.typeId()) {
      case INTEGER:
        return (int) (long) (Long) stored;
      case UUID:
        return UUID.fromString((String) stored);
      default:
        return stored;
    }
  }

  /** Carries an SQLException out of a row callback. */
  private static final class SqlFailure extends RuntimeException {
    SqlFailure(SQLException e) {
      super(e);
    }
  }

  private static void readRows(Runnable read) throws SQLException {
    try {
      read.run();
    } catch (SqlFailure e) {
      throw (SQLException) e.getCause();
    }
  }

  /** A data file of the history that cannot be read (deleted by an expiry, for one) makes the run unsafe. */
  private static void readRowsSafely(DataFile file, Runnable read) throws SQLException, Unsafe {
    try {
      readRows(read);
    } catch (org.apache.iceberg.exceptions.NotFoundException | java.io.UncheckedIOException e) {
      throw new Unsafe("cannot read data file " + file.location() + ": " + e.getMessage());
    }
  }
}
