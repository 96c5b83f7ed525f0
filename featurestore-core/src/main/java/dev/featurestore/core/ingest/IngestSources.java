package dev.featurestore.core.ingest;

import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Opens an ingest's file sources when the ingest runs: local files (which must exist then) and
 * staged objects in the store's bucket, read through the table's FileIO (S3FileIO streams them:
 * bounded memory). Object keys are checked when the source is set.
 */
final class IngestSources {
  private IngestSources() {}

  static Supplier<RowSource> csv(Path file) {
    return () -> new CsvRowSource(existing(file));
  }

  static Supplier<RowSource> json(TableHandle handle, Path file) {
    return () -> new JsonRowSource(existing(file), decimalColumns(handle.table().schema()));
  }

  static Supplier<RowSource> parquet(Path file) {
    return () -> new ParquetRowSource(existing(file));
  }

  static Supplier<RowSource> csvObject(TableHandle handle, String key) {
    ObjectStorage.checkKey(key);
    return () -> new CsvRowSource(objectFile(handle, key).newStream(), key);
  }

  static Supplier<RowSource> jsonObject(TableHandle handle, String key) {
    ObjectStorage.checkKey(key);
    return () -> new JsonRowSource(objectFile(handle, key).newStream(), key, decimalColumns(handle.table().schema()));
  }

  static Supplier<RowSource> parquetObject(TableHandle handle, String key) {
    ObjectStorage.checkKey(key);
    return () -> new ParquetRowSource(objectFile(handle, key), key);
  }

  private static InputFile objectFile(TableHandle handle, String key) {
    ObjectStorage storage = handle.config().objectStorage().orElseThrow(() -> new ValidationException(
        "Cannot ingest object: the store is not on object storage, use csv/json/parquet(Path): " + key));
    String location = "s3://" + storage.bucket() + "/" + storage.key(key);
    InputFile file = handle.io().newInputFile(location);
    if (!file.exists()) {
      throw new NotFoundException("Cannot read ingest source: object does not exist: " + key);
    }
    return file;
  }

  private static Path existing(Path file) {
    if (!Files.exists(file)) {
      throw new NotFoundException("Cannot read ingest source: file does not exist: " + file);
    }
    return file;
  }

  /** JSON numbers for decimal columns are read exactly (as BigDecimal), not as doubles. */
  private static Set<String> decimalColumns(Schema schema) {
    Set<String> names = new HashSet<>();
    for (Types.NestedField field : schema.columns()) {
      if (field.type().typeId() == Type.TypeID.DECIMAL) {
        names.add(field.name());
      }
    }
    return names;
  }
}
