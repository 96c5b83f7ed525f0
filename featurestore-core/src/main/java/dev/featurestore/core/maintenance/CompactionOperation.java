package dev.featurestore.core.maintenance;


import dev.featurestore.CommitConflictException;
import dev.featurestore.Compaction;
import dev.featurestore.CompactionResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bin-packs the small files of each partition: reads their rows with Iceberg's generic reader and
 * delete filter (so deleted rows are dropped), writes target-sized files, and swaps them in with
 * one {@code RewriteFiles} commit validated from the planned snapshot. The new files keep the
 * planned snapshot's data sequence number, so equality deletes committed meanwhile still apply.
 */
final class CompactionOperation implements Compaction {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionOperation.class);

  private final TableHandle handle;
  private Long targetFileSize;
  private Long smallFileThreshold;
  private int minInputFiles = 2;
  private SortOrder sortOrder;
  private Expression filter = Expressions.alwaysTrue();
  private boolean used = false;
  /** Test hook: runs after the files are written, before the commit. */
  Runnable beforeCommit = () -> {};

  CompactionOperation(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public Compaction targetFileSizeBytes(long bytes) {
    this.targetFileSize = checkPositive(bytes);
    return this;
  }

  @Override
  public Compaction smallFileThresholdBytes(long bytes) {
    if (bytes <= 0) {
      throw new InvalidArgumentException("Cannot compact: small-file threshold must be positive: " + bytes);
    }
    this.smallFileThreshold = bytes;
    return this;
  }

  @Override
  public Compaction minInputFiles(int count) {
    if (count < 1) {
      throw new InvalidArgumentException("Cannot compact: minimum input files must be at least 1: " + count);
    }
    this.minInputFiles = count;
    return this;
  }

  @Override
  public Compaction sortBy(SortOrder order) {
    this.sortOrder = InvalidArgumentException.requireNonNull(order, "compact table", "order");
    return this;
  }

  @Override
  public Compaction filter(Expression filter) {
    this.filter = InvalidArgumentException.requireNonNull(filter, "compact table", "filter");
    return this;
  }

  private static long checkPositive(long bytes) {
    if (bytes <= 0) {
      throw new InvalidArgumentException("Cannot compact: target file size must be positive: " + bytes);
    }
    return bytes;
  }

  /** The files of one partition chosen for rewriting. */
  private record Group(PartitionSpec spec, StructLike partition, List<FileScanTask> tasks) {}

  @Override
  public CompactionResult execute() {
    if (used) {
      throw new InvalidStateException("Cannot execute compaction of table " + handle.id() + ": already executed");
    }
    used = true;
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    long target = targetFileSize != null ? targetFileSize
        : checkPositive(PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
    long small = smallFileThreshold != null ? smallFileThreshold : Math.max(1, target * 3 / 4);
    Snapshot start = table.currentSnapshot();
    if (start == null) {
      return CompactionResult.nothingToDo();
    }
    List<FileScanTask> tasks = handle.translating("plan compaction of table " + handle.id(), () -> plan(table, start));
    List<Group> groups = select(table, tasks, small);
    if (groups.isEmpty()) {
      return CompactionResult.nothingToDo();
    }
    Set<String> rewritten = new HashSet<>();
    for (Group group : groups) {
      group.tasks().forEach(t -> rewritten.add(t.file().location()));
    }
    List<DeleteFile> danglingDeletes = filter == Expressions.alwaysTrue() ? danglingDeletes(tasks, rewritten) : List.of();

    List<DataFile> written = new ArrayList<>();
    long rows;
    try {
      rows = handle.translating("write compacted files of table " + handle.id(), () -> write(table, groups, target, written));
    } catch (RuntimeException e) {
      deleteQuietly(written);
      throw e;
    }
    long rewrittenBytes = 0;
    long addedBytes = 0;
    for (Group group : groups) {
      for (FileScanTask task : group.tasks()) {
        rewrittenBytes += task.file().fileSizeInBytes();
      }
    }
    for (DataFile file : written) {
      addedBytes += file.fileSizeInBytes();
    }
    long snapshotId;
    try {
      beforeCommit.run();
      snapshotId = handle.commitLocked(() -> commit(handle.table(), start, groups, danglingDeletes, written));
    } catch (dev.featurestore.CommitStateUnknownException e) {
      throw e; // the files may be committed: never delete them blindly
    } catch (RuntimeException e) {
      deleteQuietly(written);
      throw e;
    }
    LOG.info("Compacted table {}: {} files -> {} files in {} partitions", handle.id(), rewritten.size(),
        written.size(), groups.size());
    handle.record("compact", snapshotId, java.util.Map.of("rewritten_files", rewritten.size(), "added_files", written.size(),
        "removed_delete_files", danglingDeletes.size(), "rewritten_bytes", rewrittenBytes, "added_bytes", addedBytes,
        "rows", rows));
    return new CompactionResult(OptionalLong.of(snapshotId), rewritten.size(), written.size(),
        danglingDeletes.size(), rewrittenBytes, addedBytes, rows, groups.size());
  }

  private List<FileScanTask> plan(Table table, Snapshot start) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> files = table.newScan()
        .useSnapshot(start.snapshotId())
        .filter(filter)
        .ignoreResiduals()
        .planFiles()) {
      files.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  private List<Group> select(Table table, List<FileScanTask> tasks, long small) {
    Map<String, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      DataFile file = task.file();
      if (file.fileSizeInBytes() >= small && task.deletes().isEmpty()) {
        continue;
      }
      PartitionSpec spec = table.specs().get(file.specId());
      String key = file.specId() + "/" + spec.partitionToPath(file.partition());
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(task);
    }
    List<Group> groups = new ArrayList<>();
    for (List<FileScanTask> candidates : byPartition.values()) {
      boolean hasDeletes = candidates.stream().anyMatch(t -> !t.deletes().isEmpty());
      if (candidates.size() >= minInputFiles || hasDeletes) {
        DataFile first = candidates.get(0).file();
        groups.add(new Group(table.specs().get(first.specId()), first.partition(), candidates));
      }
    }
    return groups;
  }

  /** Delete files that apply only to files being rewritten; after the rewrite they apply to nothing. */
  private static List<DeleteFile> danglingDeletes(List<FileScanTask> tasks, Set<String> rewritten) {
    Map<String, DeleteFile> deletes = new HashMap<>();
    Set<String> stillNeeded = new HashSet<>();
    for (FileScanTask task : tasks) {
      boolean kept = !rewritten.contains(task.file().location());
      for (DeleteFile delete : task.deletes()) {
        String key = deleteKey(delete);
        deletes.putIfAbsent(key, delete);
        if (kept) {
          stillNeeded.add(key);
        }
      }
    }
    List<DeleteFile> dangling = new ArrayList<>();
    deletes.forEach((location, file) -> {
      if (!stillNeeded.contains(location)) {
        dangling.add(file);
      }
    });
    return dangling;
  }

  /** v3 deletion vectors share one Puffin file: each is its own delete file, told apart by its offset. */
  private static String deleteKey(DeleteFile delete) {
    Long offset = delete.contentOffset();
    return offset == null ? delete.location() : delete.location() + "#" + offset;
  }

  private long write(Table table, List<Group> groups, long target, List<DataFile> written) {
    Schema schema = table.schema();
    SortOrder order = sortOrder != null ? sortOrder : table.sortOrder();
    FileFormat format = FileFormat.fromString(
        table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    GenericFileWriterFactory.Builder factory = new GenericFileWriterFactory.Builder(table).dataFileFormat(format);
    if (order.isSorted()) {
      factory.dataSortOrder(order);
    }
    GenericFileWriterFactory writers = factory.build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 0, System.nanoTime())
        .format(format)
        .operationId("compact-" + UUID.randomUUID())
        .build();
    long rows = 0;
    for (Group group : groups) {
      StructLike partition = group.spec().isUnpartitioned() ? null : group.partition();
      RollingDataWriter<Record> writer =
          new RollingDataWriter<>(writers, outputs, table.io(), target, group.spec(), partition);
      try {
        try (writer) {
          if (order.isSorted()) {
            List<Record> buffer = new ArrayList<>();
            readAll(table, schema, group, record -> buffer.add(record.copy()));
            buffer.sort(comparator(schema, order));
            buffer.forEach(writer::write);
            rows += buffer.size();
          } else {
            long[] count = {0};
            readAll(table, schema, group, record -> {
              writer.write(record);
              count[0]++;
            });
            rows += count[0];
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        // on failure, what the writer finished is still reported; the caller deletes it
        try {
          written.addAll(writer.result().dataFiles());
        } catch (RuntimeException notClosed) {
          // the writer failed before closing: nothing complete to report
        }
      }
    }
    return rows;
  }

  private static Comparator<Record> comparator(Schema schema, SortOrder order) {
    Comparator<StructLike> structs = SortOrderComparators.forSchema(schema, order);
    InternalRecordWrapper left = new InternalRecordWrapper(schema.asStruct());
    InternalRecordWrapper right = new InternalRecordWrapper(schema.asStruct());
    return (a, b) -> structs.compare(left.wrap(a), right.wrap(b));
  }

  /** Reads one group's rows with deletes applied, as the table's own generic read path does. */
  private static void readAll(Table table, Schema schema, Group group, java.util.function.Consumer<Record> sink)
      throws IOException {
    for (FileScanTask task : group.tasks()) {
      GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
      Schema required = deletes.requiredSchema();
      Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      try (CloseableIterable<Record> records = deletes.filter(
          FormatModelRegistry.readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
              .project(required)
              .idToConstant(constants)
              .split(task.start(), task.length())
              .build())) {
        for (Record record : records) {
          sink.accept(projected(record, schema, required));
        }
      }
    }
  }

  /** The delete filter may need extra columns (e.g. _pos); write only the table's columns. */
  private static Record projected(Record record, Schema schema, Schema required) {
    if (required.columns().size() == schema.columns().size()) {
      return record;
    }
    Record out = org.apache.iceberg.data.GenericRecord.create(schema);
    for (int i = 0; i < schema.columns().size(); i++) {
      out.set(i, record.getField(schema.columns().get(i).name()));
    }
    return out;
  }

  private long commit(Table table, Snapshot start, List<Group> groups, List<DeleteFile> danglingDeletes,
      List<DataFile> written) {
    CommitMarks mark = CommitMarks.create();
    RewriteFiles rewrite = CommitMarks.carryStreamMarks(table.currentSnapshot(),
        mark.mark(table.newRewrite().validateFromSnapshot(start.snapshotId())));
    if (start.sequenceNumber() > 0) {
      rewrite.dataSequenceNumber(start.sequenceNumber());
    }
    for (Group group : groups) {
      group.tasks().forEach(task -> rewrite.deleteFile(task.file()));
    }
    danglingDeletes.forEach(rewrite::deleteFile);
    written.forEach(rewrite::addFile);
    try {
      rewrite.commit();
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new CommitConflictException(
          "Cannot compact table " + handle.id() + ": a concurrent commit conflicts: " + e.getMessage(), e);
    } catch (CommitStateUnknownException e) {
      throw Errors.translate(e, "compact table " + handle.id());
    }
    table.refresh();
    return mark.committedSnapshotId(table, null);
  }

  private void deleteQuietly(List<DataFile> files) {
    for (DataFile file : files) {
      try {
        handle.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete compaction output {}: {}", file.location(), e.toString());
      }
    }
  }
}
