package dev.featurestore.cdc;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/** Change-log mode: every entry appended as one row, images as JSON text; one fast append per batch. */
final class ChangeLogWriter implements TableWriter {
  private final Table table;
  private final String name;
  private final String shard;
  private final Map<String, String> writerProperties;
  private final Hooks hooks;

  ChangeLogWriter(Table table, String name, String shard, String compression, Hooks hooks) {
    this.table = table;
    this.name = name;
    this.shard = shard;
    this.writerProperties = writerProperties(compression);
    this.hooks = hooks;
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
    OffsetDateTime committedAt = utc(commitMillis);

    hooks.at("flush.before-write");
    DataFileSink sink = new DataFileSink(table, schema, writerProperties);
    List<DataFile> files;
    try {
      GenericRecord record = GenericRecord.create(schema);
      long eventMillis = Long.MIN_VALUE;
      OffsetDateTime eventAt = null;
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
    throw new IllegalStateException("Cannot write CDC change log: missing column: " + column);
  }
}
