package dev.featurestore.cdc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/** Change-log mode: every entry appended as one row, images as JSON text; one fast append per batch. */
final class ChangeLogWriter implements TableWriter {
  private final Table table;
  private final String name;
  private final String shard;
  private final String compression;
  private final Hooks hooks;

  ChangeLogWriter(Table table, String name, String shard, String compression, Hooks hooks) {
    this.table = table;
    this.name = name;
    this.shard = shard;
    this.compression = compression;
    this.hooks = hooks;
  }

  /** @throws IllegalArgumentException if an existing table lacks a change-log column */
  static void checkSchema(Schema schema, String name) {
    for (Types.NestedField field : CdcTables.changeLogSchema().columns()) {
      Types.NestedField actual = schema.findField(field.name());
      if (actual == null || !actual.type().equals(field.type())) {
        throw new IllegalArgumentException("Cannot use table " + name + " as a CDC change log: missing column: "
            + field.name() + " " + field.type());
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
  public Committed write(List<Logged> entries, long lastSeq, long commitMillis) {
    table.refresh();
    Schema schema = table.schema();
    int op = pos(schema, "op");
    int seq = pos(schema, "seq");
    int shardPos = pos(schema, "shard");
    int txn = pos(schema, "txn");
    int commitTime = pos(schema, "commit_time");
    int eventTime = pos(schema, "event_time");
    int collection = pos(schema, CdcTables.COLLECTION);
    int docId = pos(schema, CdcTables.DOC_ID);
    int before = pos(schema, "before");
    int after = pos(schema, "after");
    OffsetDateTime committedAt = OffsetDateTime.ofInstant(Instant.ofEpochMilli(commitMillis), ZoneOffset.UTC);

    hooks.at("flush.before-write");
    DataFileSink sink = new DataFileSink(table, schema, compression);
    List<DataFile> files;
    try {
      GenericRecord record = GenericRecord.create(schema);
      int half = entries.size() / 2;
      for (int i = 0; i < entries.size(); i++) {
        if (i == half) {
          hooks.at("flush.mid-write");
        }
        Logged logged = entries.get(i);
        CdcEntry e = logged.entry;
        record.set(op, e.operation().code());
        record.set(seq, e.sequenceId());
        record.set(shardPos, shard);
        record.set(txn, e.transactionId().orElse(null));
        record.set(commitTime, committedAt);
        record.set(eventTime, OffsetDateTime.ofInstant(Instant.ofEpochMilli(logged.acceptedMillis), ZoneOffset.UTC));
        record.set(collection, e.collection());
        record.set(docId, e.docId());
        record.set(before, logged.beforeJson);
        record.set(after, logged.afterJson);
        sink.write(record);
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
    try {
      AppendFiles append = table.newFastAppend();
      files.forEach(append::appendFile);
      CdcTables.carryMarks(table, append::set);
      append.set(CdcTables.markKey(shard), Long.toString(lastSeq));
      hooks.at("commit.before");
      append.commit();
    } catch (org.apache.iceberg.exceptions.CommitStateUnknownException e) {
      throw e; // the files may be referenced: keep them
    } catch (RuntimeException | Error e) {
      DataFileSink.deleteFiles(table, files);
      throw e;
    }
    hooks.at("commit.after");
    return new Committed(files.size(), bytes, table.currentSnapshot().snapshotId(), List.of());
  }

  private static int pos(Schema schema, String column) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalStateException("Cannot write CDC change log: missing column: " + column);
  }
}
