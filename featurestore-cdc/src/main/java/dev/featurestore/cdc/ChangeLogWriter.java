package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.TableCoordination;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * Change-log mode: every entry appended as one row, images as JSON text; one append per batch. A
 * merging append, not a fast one: a fast append adds a manifest per commit, so a stream's current
 * snapshot had as many manifests as commits (2,000 after 2,000 commits in {@code cdc-soak}) until a
 * manifest rewrite won a race against the stream; Iceberg's merging append folds small manifests at
 * {@code commit.manifest.min-count-to-merge} (100) within the commit itself.
 */
final class ChangeLogWriter implements TableWriter {
  /** Commits to a scratch table in {@link #warmUp()}: enough for the commit path's first compilations. */
  static final int WARM_UP_COMMITS = 5;

  private final Table table;
  private final String name;
  private final String shard;
  private final Map<String, String> writerProperties;
  private final Hooks hooks;
  private final PendingFiles pending;
  private final TableCoordination coordination;

  ChangeLogWriter(Table table, String name, String shard, String compression, Hooks hooks, PendingFiles pending,
      TableCoordination coordination) {
    this.table = table;
    this.name = name;
    this.shard = shard;
    this.writerProperties = writerProperties(compression);
    this.hooks = hooks;
    this.pending = pending;
    this.coordination = coordination;
  }

  /**
   * The compression, and no dictionary for the columns whose values are (nearly) all distinct:
   * Parquet would build a dictionary per page, find it does not pay and re-encode the page
   * plainly, which was a quarter of the flusher's time. Low-cardinality columns keep theirs.
   */
  static Map<String, String> writerProperties(String compression) {
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.PARQUET_COMPRESSION, compression);
    for (String column : List.of("seq", "event_time", CdcTables.DOC_ID, "before", "after")) {
      props.put(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + column, "false");
    }
    return Map.copyOf(props);
  }

  /** @throws InvalidArgumentException if an existing table lacks a change-log column */
  static void checkSchema(Schema schema, String name) {
    CdcTables.checkColumns(schema, CdcTables.changeLogSchema(), name, "change log");
  }

  @Override
  public Table table() {
    return table;
  }

  @Override
  public String name() {
    return name;
  }

  /** A batch's data files, written and not committed yet. */
  record Prepared(ChangeLogWriter owner, List<Logged> entries, List<DataFile> files, PendingFiles.Marker marker)
      implements WrittenAhead {
    @Override
    public Committed commit(long lastSeq) {
      return owner.commit(this, lastSeq);
    }

    @Override
    public void discard() {
      owner.discard(this);
    }
  }

  @Override
  public Committed write(List<Logged> entries, long lastSeq, long commitMillis) {
    table.refresh();
    return commit(prepare(table, entries, commitMillis), lastSeq);
  }

  /**
   * Writes the data files of {@code entries} through {@code target}: this writer's table, or a
   * read-only copy of it ({@code SerializableTable}) when another thread is committing meanwhile.
   * On a failure the files written are deleted.
   */
  Prepared prepare(Table target, List<Logged> entries, long commitMillis) {
    return prepare(target, entries, commitMillis, pending, hooks);
  }

  private Prepared prepare(Table target, List<Logged> entries, long commitMillis, PendingFiles markers, Hooks hooks) {
    hooks.at("flush.before-write");
    PendingFiles.Marker marker = markers.start(name);
    boolean direct = ChangeLogRows.fits(target);
    DataFileSink sink = direct
        ? new DataFileSink(target, new ChangeLogRows(target, writerProperties, shard, commitMillis), marker)
        : new DataFileSink(target, target.schema(), writerProperties, marker);
    List<DataFile> files;
    try {
      RowFiller rows = direct ? null : new RowFiller(target.schema(), commitMillis);
      int half = entries.size() / 2;
      for (int i = 0; i < entries.size(); i++) {
        if (i == half) {
          hooks.at("flush.mid-write");
        }
        if (direct) {
          sink.write(entries.get(i));
        } else {
          sink.write(rows.fill(entries.get(i)));
        }
      }
      files = sink.finish();
    } catch (RuntimeException | Error e) {
      sink.abort();
      throw e;
    }
    hooks.at("flush.files-written");
    return new Prepared(this, entries, files, marker);
  }

  /**
   * Commits prepared files with the mark {@code lastSeq}, carrying the other shards' marks
   * forward. On a failure other than an unknown outcome the files are deleted.
   */
  Committed commit(Prepared prepared, long lastSeq) {
    List<DataFile> files = prepared.files();
    long bytes = 0;
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
    }
    CommitMarks commitMark = CommitMarks.create();
    // under the store's commit lock of the table, as every maintenance commit of this store: an
    // expiry or compaction committing between this refresh and this commit made the commit fail
    // and retry, each failed attempt leaving a metadata.json no log names (until orphan removal)
    ReentrantLock lock = coordination.commitLock();
    lock.lock();
    try {
      table.refresh(); // the marks to carry forward are the newest ones
      appendWithMark(table, files, lastSeq, commitMark, hooks);
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw e; // the files may be referenced: keep them
    } catch (RuntimeException | Error e) {
      DataFileSink.deleteFiles(table, files, prepared.marker());
      throw e;
    } finally {
      lock.unlock();
    }
    DataFileSink.committed(prepared.marker());
    hooks.at("commit.after");
    // this commit's snapshot (the table re-reads the catalog after a commit: another shard may be newer)
    return new Committed(files.stream().map(DataFile::location).toList(), bytes, commitMark.committedSnapshotId(table, null), List.of());
  }

  /**
   * One transaction: the append (mark in its summary) and the mark as a table property. If
   * Iceberg retries the commit after another shard's, the summary keeps the marks read before
   * the retry (stale for the other shards), while the property update is re-applied to the new
   * base, so the property stays true after expiry removes the snapshots that held the marks.
   */
  private void appendWithMark(Table target, List<DataFile> files, long lastSeq, CommitMarks commitMark, Hooks at) {
    Transaction txn = target.newTransaction();
    AppendFiles append = commitMark.mark(CommitPhases.forTable(target, txn.newAppend()));
    files.forEach(append::appendFile);
    CdcTables.carryMarks(target, append::set);
    append.set(CdcTables.markKey(shard), Long.toString(lastSeq));
    append.commit();
    txn.updateProperties().set(CdcTables.markKey(shard), Long.toString(lastSeq)).commit();
    at.at("commit.before");
    txn.commitTransaction();
  }

  /** Deletes the files of a prepared batch that will not be committed. */
  void discard(Prepared prepared) {
    DataFileSink.deleteFiles(table, prepared.files(), prepared.marker());
  }

  /**
   * Loads and runs the write path into memory, so the first batch does not pay class loading,
   * native codec setup and interpreted commit code (a cold first commit took 1-2 s, the freshness
   * tail): a Parquet file of synthetic rows, then {@link #WARM_UP_COMMITS} commits of it, through
   * the same code as a batch's commit, to a {@link ScratchTable} in memory. Nothing is stored and
   * the target table is not touched.
   */
  @Override
  public void warmUp() {
    List<Logged> entries = new ArrayList<>();
    for (int i = 1; i <= 200; i++) {
      Map<String, Object> doc = Map.of("id", i, "name", "warm-up");
      CdcEntry e = new CdcEntry(i, CdcOperation.INSERT, "warm-up", Integer.toString(i), shard, Optional.empty(),
          Optional.empty(), Optional.empty());
      entries.add(new Logged(e, System.currentTimeMillis(), null, Json.write(doc)));
    }
    Table scratch = ScratchTable.like(table);
    PendingFiles markers = PendingFiles.inMemory();
    for (int i = 1; i <= WARM_UP_COMMITS; i++) {
      Prepared files = prepare(scratch, entries, System.currentTimeMillis(), markers, Hooks.NONE);
      appendWithMark(scratch, files.files(), i, CommitMarks.create(), Hooks.NONE);
    }
    TableMetadataParser.toJson(((HasTableOperations) table).operations().current());
  }

  /** Builds the change-log row of an entry into one reused record. */
  private final class RowFiller {
    private final GenericRecord record;
    private final int op;
    private final int seq;
    private final int shardPos;
    private final int txn;
    private final int eventTime;
    private final int collection;
    private final int docId;
    private final int before;
    private final int after;
    private long eventMillis = Long.MIN_VALUE;
    private OffsetDateTime eventAt;

    RowFiller(Schema schema, long commitMillis) {
      this.record = GenericRecord.create(schema);
      this.op = pos(schema, "op");
      this.seq = pos(schema, "seq");
      this.shardPos = pos(schema, "shard");
      this.txn = pos(schema, "txn");
      this.eventTime = pos(schema, "event_time");
      this.collection = pos(schema, CdcTables.COLLECTION);
      this.docId = pos(schema, CdcTables.DOC_ID);
      this.before = pos(schema, "before");
      this.after = pos(schema, "after");
      record.set(pos(schema, "commit_time"), utc(commitMillis));
      record.set(shardPos, shard);
    }

    Record fill(Logged logged) {
      CdcEntry e = logged.entry;
      record.set(op, e.operation().code());
      record.set(seq, e.sequenceId());
      record.set(txn, e.transactionId().orElse(null));
      if (logged.acceptedMillis != eventMillis) {
        // entries accepted in the same millisecond share one value
        eventMillis = logged.acceptedMillis;
        eventAt = utc(eventMillis);
      }
      record.set(eventTime, eventAt);
      record.set(collection, e.collection());
      record.set(docId, e.docId());
      record.set(before, logged.beforeJson);
      record.set(after, logged.afterJson);
      return record;
    }
  }

  /** Without {@code OffsetDateTime.ofInstant}, which builds new zone rules on every call. */
  static OffsetDateTime utc(long epochMillis) {
    long seconds = Math.floorDiv(epochMillis, 1000L);
    int nanos = (int) Math.floorMod(epochMillis, 1000L) * 1_000_000;
    return OffsetDateTime.of(LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC), ZoneOffset.UTC);
  }

  private static int pos(Schema schema, String column) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new InvalidStateException("Cannot write CDC change log: missing column: " + column);
  }
}
