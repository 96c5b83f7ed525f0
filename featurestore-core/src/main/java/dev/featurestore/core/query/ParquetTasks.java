package dev.featurestore.core.query;

import dev.featurestore.core.base.DeletedPositions;
import dev.featurestore.core.base.IcebergParquet;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.ColumnIterator;
import org.apache.iceberg.parquet.ParquetBloomRowGroupFilter;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * The scan reader of Parquet data files, with or without position deletes (deletion vectors or
 * position-delete files): reads what Iceberg's generic reader with its delete filter reads (the
 * same value readers, so the same records, and the same row-group pruning by statistics,
 * dictionaries and bloom filters), with less work per file and per row where a merge-on-read
 * table has many files with deletes:
 *
 * <ul>
 *   <li>a row's position is counted while reading, not read as a {@code _pos} column into every
 *       record and boxed, and deleted positions are walked in order ({@link DeletedPositions.Cursor})
 *       instead of searched in a bitmap per row; a deleted row of a flat schema is stepped over
 *       column by column without being decoded (else decoded into one reused record and dropped);
 *   <li>the deletion vectors of one Puffin file are read together ({@link DeletedPositions}), not
 *       once per data file;
 *   <li>the value reader is built once per file schema and partition constants, not per file
 *       (files a writer wrote with one schema share it), and no delete filter, Hadoop
 *       configuration or row-position reader is built per file.
 * </ul>
 *
 * Only for tasks it reads exactly as the generic reader would ({@link #applies}): Parquet, not
 * encrypted, the whole file, no equality deletes, and (checked when opened) field ids in the
 * file; other tasks go to the generic reader. One instance per read, single-threaded.
 */
final class ParquetTasks {
  private final FileIO io;
  private final Schema readSchema;
  private final Set<Integer> readIds;
  private final boolean caseSensitive;
  private final DeletedPositions deletes;
  private final Map<ModelKey, Model> models = new HashMap<>();

  private record ModelKey(MessageType fileSchema, Map<Integer, ?> constants) {}

  /**
   * A value reader, how to step over a row without decoding it (null where it cannot), and
   * whether a file being read uses it (a reader holds the state of one file's pages).
   */
  private static final class Model {
    final ParquetValueReader<Record> reader;
    final Skipper skipper;
    boolean inUse;

    Model(ParquetValueReader<Record> reader, Skipper skipper) {
      this.reader = reader;
      this.skipper = skipper;
    }
  }

  /**
   * Steps every column of a flat row over one value without decoding it (a string stays bytes,
   * no record is built): what a deleted row costs instead of a full decode. For flat schemas of
   * primitive columns only, where each column the value reader reads is one {@link ColumnIterator}
   * (the struct reader lists them in the read schema's order: the fields the file holds and no
   * constant replaces), stepped by the file column's physical type.
   */
  private static final class Skipper {
    private final ColumnIterator<?>[] columns;
    private final int[] maxDefinition;
    private final PrimitiveType.PrimitiveTypeName[] types;

    private Skipper(ColumnIterator<?>[] columns, int[] maxDefinition, PrimitiveType.PrimitiveTypeName[] types) {
      this.columns = columns;
      this.maxDefinition = maxDefinition;
      this.types = types;
    }

    /** A skipper for this reader, or null if the schema is not flat or the reader's columns are not as expected. */
    static Skipper of(ParquetValueReader<Record> reader, Schema readSchema, MessageType fileSchema,
        Map<Integer, ?> constants) {
      Map<Integer, org.apache.parquet.schema.Type> fileFields = new HashMap<>();
      for (org.apache.parquet.schema.Type field : fileSchema.getFields()) {
        if (field.getId() != null) {
          fileFields.put(field.getId().intValue(), field);
        }
      }
      List<ColumnDescriptor> descriptors = new ArrayList<>();
      for (Types.NestedField field : readSchema.columns()) {
        if (!field.type().isPrimitiveType()) {
          return null;
        }
        org.apache.parquet.schema.Type fileField = fileFields.get(field.fieldId());
        if (constants.containsKey(field.fieldId()) || fileField == null) {
          continue; // a constant or default: no column read
        }
        if (!fileField.isPrimitive() || fileField.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)) {
          return null;
        }
        descriptors.add(fileSchema.getColumnDescription(new String[] {fileField.getName()}));
      }
      List<?> readerColumns = reader.columns();
      if (readerColumns.size() != descriptors.size()) {
        return null;
      }
      ColumnIterator<?>[] columns = new ColumnIterator<?>[descriptors.size()];
      int[] maxDefinition = new int[columns.length];
      PrimitiveType.PrimitiveTypeName[] types = new PrimitiveType.PrimitiveTypeName[columns.length];
      for (int i = 0; i < columns.length; i++) {
        if (!(readerColumns.get(i) instanceof ColumnIterator<?> column)) {
          return null;
        }
        columns[i] = column;
        maxDefinition[i] = descriptors.get(i).getMaxDefinitionLevel();
        types[i] = descriptors.get(i).getPrimitiveType().getPrimitiveTypeName();
      }
      return new Skipper(columns, maxDefinition, types);
    }

    void skipRow() {
      for (int i = 0; i < columns.length; i++) {
        ColumnIterator<?> column = columns[i];
        if (column.currentDefinitionLevel() < maxDefinition[i]) {
          column.nextNull();
          continue;
        }
        switch (types[i]) {
          case BOOLEAN -> column.nextBoolean();
          case INT32 -> column.nextInteger();
          case INT64 -> column.nextLong();
          case FLOAT -> column.nextFloat();
          case DOUBLE -> column.nextDouble();
          default -> column.nextBinary(); // BINARY, FIXED_LEN_BYTE_ARRAY, INT96
        }
      }
    }
  }

  ParquetTasks(FileIO io, Schema readSchema, boolean caseSensitive, List<FileScanTask> tasks) {
    this.io = io;
    this.readSchema = readSchema;
    this.readIds = TypeUtil.getProjectedIds(readSchema);
    this.caseSensitive = caseSensitive;
    this.deletes = new DeletedPositions(io, tasks.stream().filter(ParquetTasks::applies).toList());
  }

  /** Whether this reader takes the task (else the generic reader does). */
  static boolean applies(FileScanTask task) {
    DataFile file = task.file();
    return IcebergParquet.takesParquetTypes() && file.format() == FileFormat.PARQUET && file.keyMetadata() == null && task.start() == 0
        && task.length() == file.fileSizeInBytes() && DeletedPositions.handles(task);
  }

  /**
   * The task's live rows, lazily opened; {@code fallback} reads the task with the generic reader
   * if the file turns out to have no field ids (written by another tool; read through a name mapping).
   */
  CloseableIterable<Record> open(FileScanTask task, Supplier<CloseableIterable<Record>> fallback) {
    return new CloseableIterable<>() {
      private final CloseableGroup opened = new CloseableGroup();

      @Override
      public CloseableIterator<Record> iterator() {
        CloseableIterator<Record> it = openFile(task, fallback);
        opened.addCloseable(it);
        return it;
      }

      @Override
      public void close() throws IOException {
        opened.close();
      }
    };
  }

  private CloseableIterator<Record> openFile(FileScanTask task, Supplier<CloseableIterable<Record>> fallback) {
    DataFile file = task.file();
    InputFile input = ParquetInput.of(io.newInputFile(file.location(), file.fileSizeInBytes()));
    // Parquet's default options would build a Hadoop Configuration; the reader releases its codec factory on close
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    ParquetReadOptions options = ParquetReadOptions.builder(conf).withCodecFactory(new CodecFactory(conf, 0)).build();
    ParquetFileReader reader;
    try {
      reader = ParquetFileReader.open(input, options);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read data file " + file.location() + ": " + e.getMessage(), e);
    }
    try {
      MessageType fileSchema = reader.getFileMetaData().getSchema();
      if (!ParquetSchemaUtil.hasIds(fileSchema)) {
        reader.close();
        CloseableIterable<Record> generic = fallback.get();
        return closingBoth(generic.iterator(), generic);
      }
      reader.setRequestedSchema(ParquetSchemaUtil.pruneColumns(fileSchema, readSchema));
      List<BlockMetaData> groups = reader.getRowGroups();
      boolean[] read = rowGroupsToRead(reader, fileSchema, groups, task.residual());
      DeletedPositions.Cursor deleted = deletes.of(task);
      return new FileIterator(file.location(), reader, groups, read, model(task, fileSchema), deleted);
    } catch (IOException e) {
      closeQuietly(reader, e);
      throw new UncheckedIOException("Cannot read data file " + file.location() + ": " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      closeQuietly(reader, e);
      throw e;
    }
  }

  private static void closeQuietly(ParquetFileReader reader, Throwable failure) {
    try {
      reader.close();
    } catch (IOException | RuntimeException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  /** Row groups to read: what Iceberg's reader prunes with the task's residual filter, it prunes too. */
  private boolean[] rowGroupsToRead(ParquetFileReader reader, MessageType fileSchema, List<BlockMetaData> groups,
      Expression residual) {
    boolean[] read = new boolean[groups.size()];
    if (residual == null || residual == Expressions.alwaysTrue()) {
      java.util.Arrays.fill(read, true);
      return read;
    }
    ParquetMetricsRowGroupFilter stats = new ParquetMetricsRowGroupFilter(readSchema, residual, caseSensitive);
    ParquetDictionaryRowGroupFilter dictionaries = new ParquetDictionaryRowGroupFilter(readSchema, residual, caseSensitive);
    ParquetBloomRowGroupFilter blooms = new ParquetBloomRowGroupFilter(readSchema, residual, caseSensitive);
    for (int i = 0; i < groups.size(); i++) {
      BlockMetaData group = groups.get(i);
      read[i] = stats.shouldRead(fileSchema, group)
          && dictionaries.shouldRead(fileSchema, group, reader.getDictionaryReader(group))
          && blooms.shouldRead(fileSchema, group, reader.getBloomFilterDataReader(group));
    }
    return read;
  }

  /**
   * The value reader for files of this schema and these partition constants: built once and
   * reused file after file (a new one while another file of this read still uses it).
   */
  private Model model(FileScanTask task, MessageType fileSchema) {
    Map<Integer, Object> constants = new HashMap<>();
    // only the read columns' constants: the others (file name, sequence number) differ per file and are not read
    PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant).forEach((id, value) -> {
      if (readIds.contains(id)) {
        constants.put(id, value);
      }
    });
    ModelKey key = new ModelKey(fileSchema, constants);
    Model model = models.get(key);
    if (model == null || model.inUse) {
      ParquetValueReader<Record> reader = GenericParquetReaders.buildReader(readSchema, fileSchema, constants);
      model = new Model(reader, Skipper.of(reader, readSchema, fileSchema, constants));
      models.putIfAbsent(key, model);
    }
    model.inUse = true;
    return model;
  }

  private static CloseableIterator<Record> closingBoth(CloseableIterator<Record> it, CloseableIterable<Record> source) {
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Record next() {
        return it.next();
      }

      @Override
      public void close() throws IOException {
        try {
          it.close();
        } finally {
          source.close();
        }
      }
    };
  }

  /** The live rows of one file, row group after row group. */
  private static final class FileIterator implements CloseableIterator<Record> {
    private final String location;
    private final ParquetFileReader reader;
    private final List<BlockMetaData> groups;
    private final boolean[] read;
    private final Model owner;
    private final ParquetValueReader<Record> model;
    private final Skipper skipper;
    private final DeletedPositions.Cursor deleted;
    private int nextGroup = 0;
    private long position = 0; // of the next row in the file
    private long leftInGroup = 0;
    private Record next;
    private Record scratch; // without a skipper, deleted rows are decoded into this one record and dropped
    private boolean closed;

    FileIterator(String location, ParquetFileReader reader, List<BlockMetaData> groups, boolean[] read,
        Model model, DeletedPositions.Cursor deleted) {
      this.location = location;
      this.reader = reader;
      this.groups = groups;
      this.read = read;
      this.owner = model;
      this.model = model.reader;
      this.skipper = model.skipper;
      this.deleted = deleted;
    }

    @Override
    public boolean hasNext() {
      while (next == null) {
        if (leftInGroup == 0 && !advance()) {
          return false;
        }
        long at = position++;
        leftInGroup--;
        if (deleted.isDeleted(at)) {
          if (skipper != null) {
            skipper.skipRow();
          } else {
            scratch = model.read(scratch);
          }
        } else {
          next = model.read(null);
        }
      }
      return true;
    }

    @Override
    public Record next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Record record = next;
      next = null;
      return record;
    }

    /** Moves to the next row group to read; false at the end of the file. */
    private boolean advance() {
      while (!closed && nextGroup < groups.size()) {
        int group = nextGroup++;
        long rows = groups.get(group).getRowCount();
        if (!read[group]) {
          position += rows;
          continue;
        }
        PageReadStore pages;
        try {
          pages = reader.readRowGroup(group);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read data file " + location + ": " + e.getMessage(), e);
        }
        model.setPageSource(pages);
        leftInGroup = pages.getRowCount();
        if (leftInGroup > 0) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        owner.inUse = false;
        reader.close();
      }
    }
  }
}
