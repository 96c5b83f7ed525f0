package dev.featurestore.core.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.featurestore.AlreadyExistsException;
import dev.featurestore.ExportResult;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.storage.s3.Bucket;
import dev.featurestore.core.storage.s3.ObjectUploader;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.query.TableQuery.Plan;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.UUID;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * Writes a query's rows to one local Parquet file with Iceberg's Parquet writer (so the file keeps
 * the Iceberg field ids of the projected schema), zstd-compressed, with the lineage as JSON in the
 * key-value metadata. Writes to a hidden temporary file beside the target and links it into place
 * only when complete, so a failed export leaves no file behind and an existing file is never
 * replaced.
 */
final class ParquetExport {
  /** Key of the lineage JSON in the Parquet footer. */
  static final String LINEAGE_KEY = "featurestore.lineage";
  /** Key of the library version in the Parquet footer. */
  static final String VERSION_KEY = "featurestore.version";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ParquetExport() {}

  static ExportResult export(TableHandle handle, Plan plan, Path file) {
    Path target = file.toAbsolutePath().normalize();
    if (Files.exists(target)) {
      throw new AlreadyExistsException("Cannot export: file already exists: " + file);
    }
    Path dir = target.getParent();
    Path temp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.createDirectories(dir);
      ExportResult.Lineage lineage;
      long rows = 0;
      try (QueryResult result = ScanExecution.execute(handle, plan)) {
        lineage = new ExportResult.Lineage(
            handle.id(),
            result.snapshotId(),
            plan.filter() == Expressions.alwaysTrue() ? "true" : plan.filter().toString(),
            plan.projected().columns().stream().map(Types.NestedField::name).toList(),
            Instant.now().toString());
        FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(temp.toFile()))
            .schema(plan.projected())
            .createWriterFunc(GenericParquetWriter::create)
            .set(TableProperties.PARQUET_COMPRESSION, "zstd")
            .meta(LINEAGE_KEY, lineageJson(lineage))
            .meta(VERSION_KEY, libraryVersion())
            .build();
        try (appender) {
          for (Row row : result) {
            appender.add(((RecordRow) row).toRecord());
            rows++;
          }
        }
      }
      moveIntoPlace(temp, target, file);
      return new ExportResult(target.toString(), rows, Files.size(target), lineage);
    } catch (IOException e) {
      throw new StorageException("Cannot export table " + handle.id() + " to " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw Errors.translate(e, "export table " + handle.id() + " to " + file);
    } finally {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException e) {
        // best effort: a hidden .tmp file is harmless
      }
    }
  }

  /** Content type of exported objects. */
  static final String PARQUET_CONTENT_TYPE = "application/vnd.apache.parquet";

  /**
   * Exports to {@code exports/<name>.parquet} in the store's bucket: a local temporary file first
   * (the same writer, the same lineage), then an upload; the temporary file is always deleted.
   */
  static ExportResult exportToBucket(TableHandle handle, Plan plan, String name) {
    ObjectStorage.checkObjectName(name);
    ObjectStorage storage = handle.config().objectStorage().orElseThrow(() -> new ValidationException(
        "Cannot export to bucket: the store is not on object storage, use exportParquet(Path): " + name));
    String key = "exports/" + (name.endsWith(".parquet") ? name : name + ".parquet");
    try (Bucket bucket = Bucket.over(storage, handle.io())) {
      bucket.key(key);
      if (bucket.headIfExists(key).isPresent()) {
        throw new AlreadyExistsException("Cannot export: object already exists: " + key);
      }
      Path dir = null;
      try {
        dir = Files.createTempDirectory("featurestore-export-");
        ExportResult local = export(handle, plan, dir.resolve("export.parquet"));
        ObjectUploader.Options options = ObjectUploader.Options.forFile(bucket.storage().provider(),
            PARQUET_CONTENT_TYPE, java.util.Map.of(), null);
        ObjectUploader.upload(bucket, key, Path.of(local.location()), options);
        return new ExportResult(bucket.location(key), local.rows(), local.bytes(), local.lineage());
      } catch (IOException e) {
        throw new StorageException("Cannot export table " + handle.id() + " to bucket: cannot create a temporary file: "
            + e.getMessage(), e);
      } catch (RuntimeException e) {
        throw Errors.translate(e, "export table " + handle.id() + " to " + key);
      } finally {
        deleteTree(dir);
      }
    }
  }

  private static void deleteTree(Path dir) {
    if (dir == null) {
      return;
    }
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temporary directory
    }
  }

  /** A hard link fails if the target exists, so a file created meanwhile is never replaced. */
  private static void moveIntoPlace(Path temp, Path target, Path file) throws IOException {
    try {
      Files.createLink(target, temp);
    } catch (FileAlreadyExistsException e) {
      throw new AlreadyExistsException("Cannot export: file already exists: " + file);
    } catch (UnsupportedOperationException | IOException e) {
      if (Files.exists(target)) {
        throw new AlreadyExistsException("Cannot export: file already exists: " + file);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  static String lineageJson(ExportResult.Lineage lineage) {
    ObjectNode node = JSON.createObjectNode();
    node.put("table", lineage.table().toString());
    node.put("snapshotId", lineage.snapshotId());
    node.put("filter", lineage.filter());
    ArrayNode columns = node.putArray("columns");
    lineage.columns().forEach(columns::add);
    node.put("exportedAt", lineage.exportedAt());
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write lineage as JSON: " + e.getMessage(), e);
    }
  }

  private static String libraryVersion() {
    String version = ParquetExport.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
