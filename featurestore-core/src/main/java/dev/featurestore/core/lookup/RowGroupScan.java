package dev.featurestore.core.lookup;

import dev.featurestore.core.base.DeletedPositions;
import dev.featurestore.core.base.IcebergParquet;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.parquet.InternalReader;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Reads chosen row groups of a Parquet data file with the footer a lookup already cached: no second
 * footer or bloom filter read, values in Iceberg's internal representation (a timestamp is a long,
 * not an {@code OffsetDateTime} built for every row of the row group), and one reused record, so a
 * lookup allocates per matching row rather than per row read. Position deletes (deletion vectors,
 * position-delete files) are applied by position: a deleted row is decoded and not passed on. Only
 * for files it reads exactly as Iceberg's generic reader with its delete filter would: Parquet, no
 * equality deletes, not encrypted, every column of the read schema in the file by field id and of
 * a primitive type whose internal value converts to the generic one; {@link #applies} says so, else
 * the lookup reads the file with Iceberg's reader.
 */
final class RowGroupScan {
  /** Receives each row read, as internal values (the record is reused: copy what is kept). */
  interface RowAction {
    void accept(StructLike row, long position);
  }

  private RowGroupScan() {}

  static boolean applies(FileScanTask task, FooterCache.Footer footer, Schema readSchema) {
    DataFile file = task.file();
    if (!IcebergParquet.takesParquetTypes() || file.format() != FileFormat.PARQUET || !DeletedPositions.handles(task) || file.keyMetadata() != null) {
      return false;
    }
    MessageType fileSchema = footer.schema();
    if (!ParquetSchemaUtil.hasIds(fileSchema)) {
      return false;
    }
    Set<Integer> fileIds = new HashSet<>();
    for (org.apache.parquet.schema.Type field : fileSchema.getFields()) {
      if (field.getId() != null) {
        fileIds.add(field.getId().intValue());
      }
    }
    for (Types.NestedField field : readSchema.columns()) {
      if (!fileIds.contains(field.fieldId()) || !convertible(field.type())) {
        return false;
      }
    }
    return true;
  }

  /** Primitive types whose internal value {@code GenericDataUtil.internalToGeneric} turns into the generic one. */
  private static boolean convertible(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP, TIMESTAMP_NANO, STRING, UUID, FIXED,
          BINARY, DECIMAL -> true;
      default -> false;
    };
  }

  /**
   * Reads the row groups {@code groups} (indexes into the footer's blocks, ascending) and passes
   * every row {@code deleted} does not hold to {@code action} with its position in the file.
   * Returns the rows read (deleted ones included).
   */
  static long scan(FileIO io, DataFile file, FooterCache.Footer footer, int[] groups, Schema readSchema,
      DeletedPositions.Cursor deleted, RowAction action) {
    MessageType fileSchema = footer.schema();
    ParquetValueReader<StructLike> model = InternalReader.create(readSchema, fileSchema);
    InputFile input = ParquetInput.of(io.newInputFile(file.location(), file.fileSizeInBytes()));
    long rows = 0;
    // Parquet's default options build a Hadoop Configuration, which parses its XML resources on
    // first use: most of a lookup's time. The reader releases its codec factory on close: one each.
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    ParquetReadOptions options = ParquetReadOptions.builder(conf).withCodecFactory(new CodecFactory(conf, 0)).build();
    try (ParquetFileReader reader = new ParquetFileReader(input, footer.metadata(), options, input.newStream())) {
      reader.setRequestedSchema(ParquetSchemaUtil.pruneColumns(fileSchema, readSchema));
      StructLike row = null;
      for (int group : groups) {
        long first = 0; // the position of the row group's first row in the file
        for (int i = 0; i < group; i++) {
          first += footer.blocks().get(i).getRowCount();
        }
        PageReadStore pages = reader.readRowGroup(group);
        model.setPageSource(pages);
        long count = pages.getRowCount();
        for (long i = 0; i < count; i++) {
          row = model.read(row);
          if (!deleted.isDeleted(first + i)) {
            action.accept(row, first + i);
          }
        }
        rows += count;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read data file: " + file.location(), e);
    }
    return rows;
  }
}
