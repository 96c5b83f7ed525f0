package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.CommitMarks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Current-state mode, copy-on-write: one row per (collection, doc id). A batch is reduced to the
 * last change of each document; the data files of the partitions (doc-id buckets) those documents
 * fall in are read, the changed documents dropped from them, the new versions added, and the old
 * files replaced by the new ones in one {@code OverwriteFiles} commit. No delete files are ever
 * written, so a full scan reads each live row once, however many updates came before.
 *
 * <p>Typed projection: every top-level scalar field of an after image becomes a column (strings,
 * booleans, int, long, double), besides the whole document as JSON in {@code _doc}. A new field
 * adds a nullable column; an int field that gets a long value (or a float one a double) is
 * promoted; any other type change sends the entry to the dead letters, with the reason, and the
 * document keeps its previous state. Nested maps and lists live in {@code _doc} only. Field names
 * that clash with the system columns ({@code collection}, {@code doc_id}, names starting with
 * {@code _}) are not projected either.
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
  private static final int FIXED_COLUMNS = CdcTables.currentStateSchema().columns().size();
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

  private static String key(CdcEntry e) {
    return e.collection() + '\u0000' + e.docId();
  }

  @Override
  public boolean isolatesFailingEntries() {
    return true;
  }

  @Override
  public Committed write(List<Logged> entries, long lastSeq, long commitMillis) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    Schema schema = table.schema();

    // 1. reduce the batch to the last change per document, typing every after image
    Map<String, Type> columns = new LinkedHashMap<>();
    schema.columns().forEach(c -> columns.put(c.name(), c.type()));
    Map<String, Type> added = new LinkedHashMap<>();
    Map<String, Type> promoted = new LinkedHashMap<>();
    List<DeadLetter> dead = new ArrayList<>();
    Map<String, Logged> finals = new LinkedHashMap<>();
    Map<String, Map<String, Object>> images = new HashMap<>();
    for (Logged logged : entries) {
      CdcEntry e = logged.entry;
      if (e.operation() == CdcOperation.DELETE) {
        finals.put(key(e), logged);
        images.remove(key(e));
        continue;
      }
      Map<String, Object> after = Json.read(logged.afterJson);
      Map<String, Type> entryAdds = new LinkedHashMap<>();
      Map<String, Type> entryPromotions = new LinkedHashMap<>();
      String reason = plan(after, columns, entryAdds, entryPromotions);
      if (reason != null) {
        dead.add(new DeadLetter(e, reason));
        continue;
      }
      columns.putAll(entryAdds);
      columns.putAll(entryPromotions);
      added.putAll(entryAdds);
      entryPromotions.forEach((n, t) -> {
        if (!added.containsKey(n)) {
          promoted.put(n, t);
        } else {
          added.put(n, t);
        }
      });
      finals.put(key(e), logged);
      images.put(key(e), after);
    }

    // 2. schema changes and the rewrite: one transaction, one catalog commit
    Transaction txn = null;
    Table target = table;
    if (!added.isEmpty() || !promoted.isEmpty()) {
      txn = table.newTransaction();
      UpdateSchema update = txn.updateSchema();
      added.forEach(update::addColumn);
      promoted.forEach((n, t) -> update.updateColumn(n, t.asPrimitiveType()));
      update.commit();
      target = txn.table();
      schema = target.schema();
    }

    // 3. the files of the partitions the batch touches
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
    try (CloseableIterable<FileScanTask> tasks = (base == null ? CloseableIterable.<FileScanTask>empty() : table.newScan().useSnapshot(base.snapshotId()).planFiles())) {
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
    OffsetDateTime committedAt = OffsetDateTime.ofInstant(Instant.ofEpochMilli(commitMillis), ZoneOffset.UTC);
    try {
      Schema readSchema = schema;
      for (DataFile file : toRewrite) {
        try (CloseableIterable<Record> rows = Parquet.read(target.io().newInputFile(file.location()))
            .project(readSchema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(readSchema, fileSchema))
            .build()) {
          for (Record row : rows) {
            String k = row.getField(CdcTables.COLLECTION) + "\u0000" + row.getField(CdcTables.DOC_ID);
            if (!finals.containsKey(k)) {
              sink.write(row);
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read CDC current-state file: " + file.location() + ": " + e.getMessage(), e);
        }
      }
      hooks.at("flush.mid-write");
      GenericRecord record = GenericRecord.create(schema);
      for (Map.Entry<String, Logged> change : finals.entrySet()) {
        Logged logged = change.getValue();
        if (logged.entry.operation() == CdcOperation.DELETE) {
          continue;
        }
        GenericRecord row = record.copy();
        row.setField(CdcTables.COLLECTION, logged.entry.collection());
        row.setField(CdcTables.DOC_ID, logged.entry.docId());
        row.setField(CdcTables.SEQ, logged.seq());
        row.setField(CdcTables.SHARD, shard);
        row.setField(CdcTables.UPDATED_AT, committedAt);
        row.setField(CdcTables.DOC, logged.afterJson);
        for (Map.Entry<String, Object> field : images.get(change.getKey()).entrySet()) {
          Types.NestedField column = projected(field.getKey(), field.getValue()) ? schema.findField(field.getKey()) : null;
          if (column != null) {
            row.setField(field.getKey(), convert(field.getValue(), column.type()));
          }
        }
        sink.write(row);
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
      OverwriteFiles overwrite = commitMark.mark(txn != null ? txn.newOverwrite() : target.newOverwrite());
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
    return new Committed(files.stream().map(DataFile::location).toList(), bytes, commitMark.committedSnapshotId(table, null), dead);
  }

  private static List<Object> values(StructLike partition, int size) {
    List<Object> values = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      values.add(partition.get(i, Object.class));
    }
    return values;
  }

  static boolean projected(String field, Object value) {
    return value != null && !(value instanceof Map) && !(value instanceof List)
        && !field.startsWith("_") && !field.equals(CdcTables.COLLECTION) && !field.equals(CdcTables.DOC_ID)
        && !field.isEmpty();
  }

  /** Plans the columns one after image needs; returns the reason it cannot be taken, or null. */
  private String plan(Map<String, Object> after, Map<String, Type> columns, Map<String, Type> adds, Map<String, Type> promotions) {
    for (Map.Entry<String, Object> field : after.entrySet()) {
      String fieldName = field.getKey();
      Object value = field.getValue();
      if (!projected(fieldName, value)) {
        continue;
      }
      Type valueType = infer(value);
      if (valueType == null) {
        return "Cannot apply CDC entry to current state: field " + fieldName + " has a number out of range: " + value;
      }
      Type column = adds.containsKey(fieldName) ? adds.get(fieldName) : columns.get(fieldName);
      if (column == null) {
        if (!evolveSchema) {
          return "Cannot apply CDC entry to current state: unknown field and schema evolution is off: " + fieldName;
        }
        if (columns.size() + adds.size() - FIXED_COLUMNS >= maxTypedColumns) {
          continue; // beyond the cap the field stays in _doc only
        }
        adds.put(fieldName, valueType);
        continue;
      }
      if (column.equals(valueType) || fitsWithoutChange(column, value)) {
        continue;
      }
      Type widened = widening(column, valueType);
      if (widened != null && evolveSchema) {
        promotions.put(fieldName, widened);
        continue;
      }
      return "Cannot apply CDC entry to current state: field " + fieldName + " expects " + column + ", got "
          + valueType + ": " + quoted(value);
    }
    return null;
  }

  private static String quoted(Object value) {
    String text = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return text.length() > 100 ? text.substring(0, 100) + "..." : text;
  }

  /** The column type of a JSON value; null for an integer beyond long. */
  static Type infer(Object value) {
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return Types.IntegerType.get();
    }
    if (value instanceof Long l) {
      return l == l.intValue() ? Types.IntegerType.get() : Types.LongType.get();
    }
    if (value instanceof java.math.BigInteger big) {
      return big.bitLength() < 64 ? Types.LongType.get() : null;
    }
    if (value instanceof Number) {
      return Types.DoubleType.get();
    }
    if (value instanceof Boolean) {
      return Types.BooleanType.get();
    }
    return Types.StringType.get();
  }

  /** A value that converts exactly to the column type without a schema change. */
  private static boolean fitsWithoutChange(Type column, Object value) {
    switch (column.typeId()) {
      case LONG:
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
      case DOUBLE:
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
          return true;
        }
        return value instanceof Long l && Math.abs(l) <= (1L << 53);
      default:
        return false;
    }
  }

  /** The promoted column type when Iceberg can widen {@code column} to hold {@code value}; else null. */
  private static Type widening(Type column, Type value) {
    if (column.typeId() == Type.TypeID.INTEGER && value.typeId() == Type.TypeID.LONG) {
      return Types.LongType.get();
    }
    if (column.typeId() == Type.TypeID.FLOAT && value.typeId() == Type.TypeID.DOUBLE) {
      return Types.DoubleType.get();
    }
    return null;
  }

  private static Object convert(Object value, Type type) {
    return switch (type.typeId()) {
      case INTEGER -> ((Number) value).intValue();
      case LONG -> ((Number) value).longValue();
      case DOUBLE -> ((Number) value).doubleValue();
      case FLOAT -> ((Number) value).floatValue();
      default -> value;
    };
  }
}
