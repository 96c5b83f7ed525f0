package dev.featurestore.core.ingest;

import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet file read with Iceberg's generic Parquet reader. The file's own schema is read from
 * its footer (with fallback ids and a name mapping when the writer stored no field ids), and its
 * top-level columns are matched to the table's by name; the values then convert like any input.
 */
final class ParquetRowSource implements RowSource {
  private final Schema fileSchema;
  private final String[] names;
  private final Object layout = new Object();
  private final CloseableIterable<Record> records;
  private final CloseableIterator<Record> iterator;
  private final String file;
  private long number;

  ParquetRowSource(Path file) {
    this(localInput(file), file.toString());
  }

  private static InputFile localInput(Path file) {
    LocalFileIO io = new LocalFileIO();
    return io.newInputFile(file.toAbsolutePath().toString());
  }

  /** A Parquet file read through any FileIO; {@code file} names it in messages. */
  ParquetRowSource(InputFile input, String file) {
    this.file = file;
    MessageType fileType;
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetInput.of(input))) {
      fileType = reader.getFooter().getFileMetaData().getSchema();
    } catch (IOException e) {
      throw new StorageException("Cannot read ingest source: " + file + ": " + e.getMessage(), e);
    } catch (FeatureStoreException e) {
      throw e;
    } catch (RuntimeException e) {
      if (storageFailure(e)) {
        throw e; // translated by the caller
      }
      throw new InvalidDataException("Cannot read Parquet file: " + file + ": " + e.getMessage(), 0, null, e);
    }
    boolean hasIds = ParquetSchemaUtil.hasIds(fileType);
    try {
      fileSchema = ParquetSchemaUtil.convert(hasIds ? fileType : ParquetSchemaUtil.addFallbackIds(fileType));
    } catch (RuntimeException e) {
      throw new InvalidDataException("Cannot read Parquet file: unsupported schema: " + e.getMessage(), 0, null, e);
    }
    List<Types.NestedField> fields = fileSchema.columns();
    names = new String[fields.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = fields.get(i).name();
    }
    Parquet.ReadBuilder builder = Parquet.read(input)
        .project(fileSchema)
        .createReaderFunc(type -> GenericParquetReaders.buildReader(fileSchema, type))
        .reuseContainers();
    if (!hasIds) {
      builder.withNameMapping(MappingUtil.create(fileSchema));
    }
    records = builder.build();
    iterator = records.iterator();
  }

  @Override
  public String kind() {
    return "parquet";
  }

  @Override
  public Optional<Type> declaredType(String column) {
    Types.NestedField field = fileSchema.findField(column);
    return field == null ? Optional.empty() : Optional.of(field.type());
  }

  @Override
  public boolean next(RawRow row) {
    Record record;
    try {
      if (!iterator.hasNext()) {
        return false;
      }
      record = iterator.next();
    } catch (FeatureStoreException e) {
      throw e;
    } catch (RuntimeException e) {
      if (storageFailure(e)) {
        throw e; // translated by the caller
      }
      // the footer was readable, a page is not: the file is damaged, not the storage
      throw new InvalidDataException("Cannot read Parquet file: " + file + ": corrupt data after row " + number
          + ": " + Errors.rootMessage(e), number + 1, null, e);
    }
    row.clear(++number);
    row.useLayout(names, layout);
    Object[] values = row.values;
    for (int i = 0; i < names.length; i++) {
      values[i] = record.get(i);
    }
    return true;
  }

  /** A failure of the object store client (possibly wrapped by Iceberg), not of the file's bytes. */
  private static boolean storageFailure(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getClass().getName().startsWith("software.amazon")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    try {
      iterator.close();
      records.close();
    } catch (IOException e) {
      // read-only: nothing to lose
    }
  }
}
