package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidStateException;
import dev.featurestore.TableId;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;

/**
 * Internal: what every table operation needs: the Iceberg table, the store's FileIO, the
 * store's per-table commit lock, settings and worker pool. Not part of the public API.
 *
 * <p>Writes from one store to one table are serialized through {@link #commitLocked(Supplier)}:
 * cheaper than losing optimistic races to ourselves. Writers in other stores or processes are
 * still reconciled by Iceberg's optimistic retries.
 */
public final class TableHandle {
  private final TableId id;
  private final Table table;
  private final FileIO io;
  private final ReentrantLock commitLock;
  private final TableCoordination coordination;
  private final FeatureStoreConfig config;
  private final ExecutorService workers;
  private final OperationLog operations;
  private final boolean readOnly;

  /**
   * A handle of a catalog table ({@code readOnly} false) or of a table opened from its metadata
   * alone ({@code readOnly} true: {@link #commitLocked} refuses).
   */
  public TableHandle(TableId id, Table table, FileIO io, ReentrantLock commitLock, FeatureStoreConfig config,
      ExecutorService workers, OperationLog operations, boolean readOnly) {
    this(id, table, io, new TableCoordination(requireNonNull(commitLock, "commitLock is null")), config, workers,
        operations, readOnly);
  }

  /** As above, with the store's shared coordination of the table (its commit lock and compactions' row moves). */
  public TableHandle(TableId id, Table table, FileIO io, TableCoordination coordination, FeatureStoreConfig config,
      ExecutorService workers, OperationLog operations, boolean readOnly) {
    this.id = requireNonNull(id, "id is null");
    this.table = requireNonNull(table, "table is null");
    this.io = requireNonNull(io, "io is null");
    this.coordination = requireNonNull(coordination, "coordination is null");
    this.commitLock = coordination.commitLock();
    this.config = requireNonNull(config, "config is null");
    this.workers = requireNonNull(workers, "workers is null");
    this.operations = requireNonNull(operations, "operations is null");
    this.readOnly = readOnly;
  }

  /** True for a table opened read-only from its metadata: every write is refused. */
  public boolean readOnly() {
    return readOnly;
  }

  /**
   * Throws {@link InvalidStateException} {@code Cannot <what>: table is read-only (opened from its
   * metadata file): <table>} if the table is read-only.
   */
  public void checkWritable(String what) {
    if (readOnly) {
      throw new InvalidStateException("Cannot " + what + ": table is read-only (opened from its metadata file): " + id);
    }
  }

  /** The store's operations log. */
  public OperationLog operations() {
    return operations;
  }

  /** Records an operation on this table in the store's operations log; never throws. */
  public void record(String operation, Long snapshotId, java.util.Map<String, ?> details) {
    operations.record(operation, id, snapshotId, details);
  }

  public TableId id() {
    return id;
  }

  /** The Iceberg table, as of its last refresh. */
  public Table table() {
    return table;
  }

  /** Reloads and returns the Iceberg table. */
  public Table refreshed() {
    table.refresh();
    return table;
  }

  public FileIO io() {
    return io;
  }

  public FeatureStoreConfig config() {
    return config;
  }

  /** What the store's writers of this table share: the commit lock and compactions' row moves. */
  public TableCoordination coordination() {
    return coordination;
  }

  /** A pool of worker threads shared by the store (for parallel file writes and reads). */
  public ExecutorService workers() {
    return workers;
  }

  /**
   * Runs {@code action} holding this table's commit lock, after refreshing the table, and
   * translates Iceberg failures to the library's exceptions.
   */
  public <T> T commitLocked(Supplier<T> action) {
    checkWritable("commit to table " + id);
    commitLock.lock();
    try {
      table.refresh();
      return action.get();
    } catch (RuntimeException e) {
      throw Errors.translate(e, "commit to table " + id);
    } finally {
      commitLock.unlock();
    }
  }

  /** Runs {@code action}, translating Iceberg failures to the library's exceptions. */
  public <T> T translating(String what, Supplier<T> action) {
    try {
      return action.get();
    } catch (RuntimeException e) {
      throw Errors.translate(e, what);
    }
  }
}
