package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.ScanPlanning;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Current-state mode, copy-on-write: one row per (collection, doc id). A batch is reduced to the
 * last change of each document; the data files of the partitions (doc-id buckets) those documents
 * fall in are read, the changed documents dropped from them, the new versions added, and the old
 * files replaced by the new ones in one {@code OverwriteFiles} commit. No delete files are ever
 * written, so a full scan reads each live row once, however many updates came before.
 *
 * <p>The batch is reduced and typed by {@link CurrentStateBatch}, shared with the merge-on-read
 * layout ({@link MergeOnReadStateWriter}).
 *
 * <p>Concurrent writers (other shards) are detected by Iceberg's conflict validation (any data
 * added since the base snapshot); the pipeline then redoes the batch on the new state.
 */
final class CurrentStateWriter implements TableWriter {
  private final Table table;
  private final String name;
  private final String shard;
  private final String compression;
  private final boolean evolveSchema;
  /** At most this many typed columns (besides the fixed ones); further fields stay in {@code _doc} only. */
  private final int maxTypedColumns;
  private final Hooks hooks;
  private final PendingFiles pending;

  CurrentStateWriter(Table table, String name, String shard, String compression, boolean evolveSchema,
      int maxTypedColumns, Hooks hooks, PendingFiles pending) {
    this.table = table;
    this.name = name;
    this.shard = shard;
    this.compression = compression;
    this.evolveSchema = evolveSchema;
    this.maxTypedColumns = maxTypedColumns;
    this.hooks = hooks;
    this.pending = pending;
  }

  /** @throws InvalidArgumentException if an existing table cannot hold the current state */
  static void checkTable(Table table, String name) {
    Schema schema = table.schema();
    CdcTables.checkColumns(schema, CdcTables.currentStateSchema(), name, "current state");
    for (PartitionField field : table.spec().fields()) {
      String source = schema.findColumnName(field.sourceId());
      if (!CdcTables.COLLECTION.equals(source) && !CdcTables.DOC_ID.equals(source)) {
        throw new InvalidArgumentException("Cannot use table " + name
            + " as a CDC current state: partition field is not on collection or doc_id: " + field.name());
      }
    }
  }

  @Override
  public Table table() {
    return table;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean isolatesFailingEntries() {
    return true;
  }

  @Override
  public Committed write(List<Logged> entries, long lastSeq, long commitMillis) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    // 1. the last change per document, typed; schema changes and the rewrite: one transaction
    CurrentStateBatch batch = CurrentStateBatch.of(table, entries, evolveSchema, maxTypedColumns);
    Map<String, Logged> finals = batch.finals;
    Transaction txn = batch.txn;
    Table target = batch.target;
    Schema schema = batch.schema;

    // 2. the files of the partitions the batch touches
    PartitionSpec spec = target.spec();
    Set<List<Object>> affected = new HashSet<>();
    PartitionKey partitionKey = new PartitionKey(spec, schema);
    GenericRecord probe = GenericRecord.create(schema);
    for (Logged logged : finals.values()) {
      probe.setField(CdcTables.COLLECTION, logged.entry.collection());
      probe.setField(CdcTables.DOC_ID, logged.entry.docId());
      partitionKey.partition(probe);
      affected.add(values(partitionKey, spec.fields().size()));
    }
    List<DataFile> toRewrite = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = (base == null ? CloseableIterable.<FileScanTask>empty() : ScanPlanning.newScan(table, base).planFiles())) {
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty()) {
          throw new InvalidStateException("Cannot upsert into CDC current state " + name
              + ": the table has delete files (written by another tool); compact it first: " + task.file().location());
        }
        DataFile file = task.file();
        if (file.specId() != spec.specId() || affected.contains(values(file.partition(), spec.fields().size()))) {
          toRewrite.add(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan CDC current-state rewrite: " + e.getMessage(), e);
    }

    hooks.at("flush.before-write");
    PendingFiles.Marker marker = pending.start(name);
    DataFileSink sink = new DataFileSink(target, schema, compression, marker);
    List<DataFile> files;
    try {
      Schema readSchema = schema;
      for (DataFile file : toRewrite) {
        try (CloseableIterable<Record> rows = Parquet.read(target.io().newInputFile(file.location()))
            .project(readSchema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(readSchema, fileSchema))
            .build()) {
          for (Record row : rows) {
            if (!finals.containsKey(CurrentStateBatch.key(row.getField(CdcTables.COLLECTION), row.getField(CdcTables.DOC_ID)))) {
              sink.write(row);
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read CDC current-state file: " + file.location() + ": " + e.getMessage(), e);
        }
      }
      hooks.at("flush.mid-write");
      for (Logged logged : finals.values()) {
        if (logged.entry.operation() != CdcOperation.DELETE) {
          sink.write(batch.row(logged, shard, commitMillis));
        }
      }
      files = sink.finish();
    } catch (RuntimeException | Error e) {
      sink.abort();
      throw e;
    }
    hooks.at("flush.files-written");
    long bytes = 0;
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
    }
    CommitMarks commitMark = CommitMarks.create();
    try {
      OverwriteFiles overwrite = commitMark.mark(
          CommitPhases.forTable(target, txn != null ? txn.newOverwrite() : target.newOverwrite()));
      if (base != null) {
        overwrite.validateFromSnapshot(base.snapshotId());
      }
      // another shard rewriting in the meantime fails this commit; the pipeline redoes the batch
      overwrite.conflictDetectionFilter(Expressions.alwaysTrue()).validateNoConflictingData().validateNoConflictingDeletes();
      toRewrite.forEach(overwrite::deleteFile);
      files.forEach(overwrite::addFile);
      CdcTables.carryMarks(table, overwrite::set);
      overwrite.set(CdcTables.markKey(shard), Long.toString(lastSeq));
      hooks.at("commit.before");
      overwrite.commit();
      if (txn != null) {
        txn.commitTransaction();
      }
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      DataFileSink.deleteFiles(table, files, marker);
      throw e;
    }
    DataFileSink.committed(marker);
    hooks.at("commit.after");
    table.refresh();
    // this commit's snapshot, not whatever another shard or process committed since
    return new Committed(files.stream().map(DataFile::location).toList(), bytes, commitMark.committedSnapshotId(table, null), batch.dead);
  }

  private static List<Object> values(StructLike partition, int size) {
    List<Object> values = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      values.add(partition.get(i, Object.class));
    }
    return values;
  }
}
