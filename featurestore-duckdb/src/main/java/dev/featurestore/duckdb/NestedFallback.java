package dev.featurestore.duckdb;

import dev.featurestore.StorageException;
import dev.featurestore.duckdb.ScanPlanner.PlannedScan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * DuckDB maps top-level columns by Parquet field id but the fields inside a struct (and a list's
 * element or a map's values when they are structs) by name. A data file written before a nested
 * field was renamed, added or dropped would read wrong (a renamed field as null). Such files are
 * found from their footers and read through Iceberg's generic reader instead, which matches
 * every level by id; the rows are written, in the same order and without applying deletes, to a
 * local Parquet file whose nested names are the version's. DuckDB then reads that file in place
 * of the original, so positional deletes ({@code file_row_number}), equality deletes and filters
 * apply unchanged.
 */
final class NestedFallback {
  private NestedFallback() {}

  /**
   * Rewrites the data files of {@code scan} whose nested fields do not match {@code fields} by
   * name into {@code directory} (asked for only when a file needs it); returns their rewritten
   * local paths by data file location (empty if none needed it).
   */
  static Map<String, String> rewrite(PlannedScan scan, Collection<Types.NestedField> fields, Map<String, String> local,
      java.util.function.Supplier<Path> directory) {
    List<Types.NestedField> nested = fields.stream().filter(f -> f.type().isNestedType()).toList();
    Map<String, String> rewritten = new LinkedHashMap<>();
    if (nested.isEmpty()) {
      return rewritten;
    }
    Schema readSchema = null;
    for (FileScanTask task : scan.tasks()) {
      String location = task.file().location();
      if (rewritten.containsKey(location) || task.file().format() != FileFormat.PARQUET) {
        continue;
      }
      Path path = Path.of(local.get(location));
      if (matchesByName(nested, footerSchema(path))) {
        continue;
      }
      if (readSchema == null) {
        readSchema = internalSchema(fields);
      }
      Path target = directory.get().resolve(UUID.randomUUID() + ".parquet");
      copyThroughIceberg(task, path, target, readSchema);
      rewritten.put(location, target.toString());
    }
    return rewritten;
  }

  /** Top-level columns named by id ({@code c<id>}, as the adapter reads them) and optional; nested names kept. */
  private static Schema internalSchema(Collection<Types.NestedField> fields) {
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField field : fields) {
      columns.add(Types.NestedField.from(field).withName("c" + field.fieldId()).asOptional().build());
    }
    return new Schema(columns);
  }

  private static Schema footerSchema(Path path) {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
      return ParquetSchemaUtil.convert(reader.getFooter().getFileMetaData().getSchema());
    } catch (IOException e) {
      throw new StorageException("Cannot read Parquet footer: " + e.getMessage() + ": " + path, e);
    }
  }

  /** True when DuckDB's by-name matching inside every nested column gives the field ids' values. */
  static boolean matchesByName(List<Types.NestedField> nested, Schema file) {
    for (Types.NestedField field : nested) {
      Types.NestedField inFile = file.findField(field.fieldId());
      if (inFile == null) {
        continue; // the whole column is missing: read as null (or its default) by id
      }
      if (!sameShape(field.type(), inFile.type())) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameShape(Type expected, Type actual) {
    if (expected.typeId() != actual.typeId()) {
      return false;
    }
    switch (expected.typeId()) {
      case STRUCT -> {
        List<Types.NestedField> want = expected.asStructType().fields();
        List<Types.NestedField> have = actual.asStructType().fields();
        if (want.size() != have.size()) {
          return false; // a nested field added or dropped
        }
        for (Types.NestedField field : want) {
          Types.NestedField other = actual.asStructType().field(field.fieldId());
          if (other == null || !other.name().equals(field.name()) || !sameShape(field.type(), other.type())) {
            return false;
          }
        }
        return true;
      }
      case LIST -> {
        return expected.asListType().elementId() == actual.asListType().elementId()
            && sameShape(expected.asListType().elementType(), actual.asListType().elementType());
      }
      case MAP -> {
        Types.MapType want = expected.asMapType();
        Types.MapType have = actual.asMapType();
        return want.keyId() == have.keyId() && want.valueId() == have.valueId()
            && sameShape(want.keyType(), have.keyType()) && sameShape(want.valueType(), have.valueType());
      }
      default -> {
        return expected.equals(actual); // a promotion inside a struct: let Iceberg convert it
      }
    }
  }

  private static void copyThroughIceberg(FileScanTask task, Path source, Path target, Schema schema) {
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    try (CloseableIterable<Record> rows = FormatModelRegistry
            .readBuilder(FileFormat.PARQUET, Record.class, Files.localInput(source.toFile()))
            .project(schema)
            .idToConstant(constants)
            .build();
         FileAppender<Record> out = Parquet.write(Files.localOutput(target.toFile()))
            .schema(schema)
            .createWriterFunc(GenericParquetWriter::create)
            .set(TableProperties.PARQUET_COMPRESSION, "snappy")
            .build()) {
      for (Record row : rows) {
        out.add(row);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot read data file through Iceberg: " + e.getMessage() + ": "
          + task.file().location(), e);
    }
  }
}
