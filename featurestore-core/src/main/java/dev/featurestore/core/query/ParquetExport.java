package dev.featurestore.core.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.featurestore.AlreadyExistsException;
import dev.featurestore.ExportResult;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.StorageException;
import dev.featurestore.core.Errors;
import dev.featurestore.core.TableHandle;
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
