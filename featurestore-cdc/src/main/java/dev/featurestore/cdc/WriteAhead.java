package dev.featurestore.cdc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Change-log-only pipelines write the next sealed batch's data files on a second thread while the
 * flusher commits the current one (commits stay in sequence order). Used by the thread holding
 * the flush lock.
 */
final class WriteAhead {
  private static final Logger LOG = LoggerFactory.getLogger(WriteAhead.class);

  private final ChangeLogWriter writer;
  private final String shard;
  private final ExecutorService executor;
  /** The batch written ahead, if any. */
  private Pending pending;
  /** The read-only copy of the table the last batch was written through, and what it was taken from. */
  private Table copy;
  private List<Object> copied;

  private record Pending(List<Logged> batch, Future<TableWriter.WrittenAhead> files) {}

  WriteAhead(ChangeLogWriter writer, String shard) {
    this.writer = writer;
    this.shard = shard;
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "featurestore-cdc-writer-" + shard);
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts writing the files of {@code next} (entries above {@code committed}), through a read-only copy of the table. */
  void start(List<Logged> next, long committed) {
    if (next == null || committed >= next.get(next.size() - 1).seq()) {
      return;
    }
    List<Logged> todo = committed < next.get(0).seq() ? next : above(next, committed);
    try {
      Table target = copyOf(writer.table());
      long commitMillis = System.currentTimeMillis();
      pending = new Pending(next, executor.<TableWriter.WrittenAhead>submit(() -> writer.prepare(target, todo, commitMillis)));
    } catch (RuntimeException e) {
      // closing, or the table cannot be copied: the batch is written when its turn comes
      LOG.debug("CDC shard {}: cannot write the next batch ahead: {}", shard, e.toString());
    }
  }

  /** The entries of {@code batch} above {@code committed} (part of the batch is committed; the commit compares the lists). */
  private static List<Logged> above(List<Logged> batch, long committed) {
    List<Logged> todo = new ArrayList<>(batch.size());
    for (Logged l : batch) {
      if (l.seq() > committed) {
        todo.add(l);
      }
    }
    return todo;
  }

  /**
   * A read-only copy of {@code table} ({@code SerializableTable}, ~5% of a commit's CPU to take):
   * the last one while what a data file is written by is unchanged (schema, spec, sort order,
   * location, properties other than the shards' marks, which every commit changes).
   */
  private Table copyOf(Table table) {
    Map<String, String> properties = new HashMap<>(table.properties());
    properties.keySet().removeIf(k -> k.startsWith(CdcTables.MARK_PREFIX) && k.endsWith(CdcTables.MARK_SUFFIX));
    List<Object> from = List.of(table.schema().schemaId(), table.spec().specId(), table.sortOrder().orderId(),
        table.location(), properties);
    if (copy == null || !from.equals(copied)) {
      copy = SerializableTable.copyOf(table);
      copied = from;
    }
    return copy;
  }

  /** The files written ahead for {@code batch} (awaited), or null; any other batch's are dropped. */
  TableWriter.WrittenAhead take(List<Logged> batch) {
    if (pending != null && pending.batch() == batch) {
      Future<TableWriter.WrittenAhead> files = pending.files();
      pending = null;
      return await(files);
    }
    discard();
    return null;
  }

  /** Drops the batch written ahead (its files are deleted), after waiting for it. */
  void discard() {
    if (pending == null) {
      return;
    }
    Future<TableWriter.WrittenAhead> files = pending.files();
    pending = null;
    TableWriter.WrittenAhead prepared = await(files);
    if (prepared != null) {
      prepared.discard();
    }
  }

  void shutdown() {
    discard();
    executor.shutdown();
  }

  /** The files written ahead, or null if that failed (the batch is then written when committed). */
  private TableWriter.WrittenAhead await(Future<TableWriter.WrittenAhead> files) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return files.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException | CancellationException e) {
          LOG.debug("CDC shard {}: writing a batch ahead failed; it is written again at its commit: {}", shard,
              e.getCause() == null ? e.toString() : e.getCause().toString());
          return null;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
