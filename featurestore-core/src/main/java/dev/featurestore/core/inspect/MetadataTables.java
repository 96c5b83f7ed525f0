package dev.featurestore.core.inspect;

import static java.util.Objects.requireNonNull;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MetadataTable;
import dev.featurestore.QueryResult;
import dev.featurestore.core.base.ListResult;
import dev.featurestore.core.base.OperationLog;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.base.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Entry point of the metadata tables ({@link MetadataTable}): Iceberg's own metadata tables
 * ({@link MetadataTableUtils#createMetadataTableInstance}) scanned and their rows turned into generic
 * values, so the numbers are Iceberg's; plus the schema versions ({@link SchemaRows}), the bloom
 * columns of each data file ({@link BloomColumns}) and the store's operations log.
 *
 * <pre>{@code
 * try (QueryResult files = MetadataTables.read(handle, MetadataTable.DATA_FILES)) { ... }
 * }</pre>
 */
public final class MetadataTables {
  private MetadataTables() {}

  /**
   * The rows of {@code kind} as of the current snapshot, after a refresh.
   *
   * @throws dev.featurestore.StorageException if manifests or footers cannot be read
   */
  public static QueryResult read(TableHandle handle, MetadataTable kind) {
    requireNonNull(handle, "handle is null");
    InvalidArgumentException.requireNonNull(kind, "read metadata table", "metadataTable");
    return handle.translating("read metadata table " + handle.id() + "$" + kind.sqlName(), () -> {
      long start = System.nanoTime();
      Table table = handle.refreshed();
      long snapshotId = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
      Schema schema;
      List<Record> rows;
      switch (kind) {
        case OPERATIONS -> {
          schema = OperationLog.SCHEMA;
          rows = handle.operations().entries(Optional.of(handle.id()));
        }
        case SCHEMAS -> {
          schema = SchemaRows.SCHEMA;
          rows = SchemaRows.of(table);
        }
        default -> {
          Table metadata = MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.valueOf(kind.name()));
          schema = metadata.schema();
          rows = scan(metadata, schema);
          if (kind == MetadataTable.FILES || kind == MetadataTable.DATA_FILES || kind == MetadataTable.DELETE_FILES) {
            Types.NestedField bloom = BloomColumns.field(schema);
            List<Types.NestedField> columns = new ArrayList<>(schema.columns());
            columns.add(bloom);
            Schema withBloom = new Schema(columns);
            rows = withBloomColumns(handle, table, withBloom, rows);
            schema = withBloom;
          }
        }
      }
      return new ListResult(schema, snapshotId, rows, System.nanoTime() - start);
    });
  }

  /** Every row of an Iceberg metadata table, as generic records of its schema. */
  static List<Record> scan(Table metadata, Schema schema) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = ScanPlanning.newCurrentScan(metadata).planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> structs = task.asDataTask().rows()) {
          for (StructLike struct : structs) {
            rows.add(InternalValues.toRecord(schema.asStruct(), struct));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot scan metadata table: " + metadata.name(), e);
    }
    return rows;
  }

  /** The rows with the bloom-filter columns of each Parquet data file, footers read in parallel. */
  private static List<Record> withBloomColumns(TableHandle handle, Table table, Schema schema, List<Record> rows) {
    int content = position(schema, "content");
    int path = position(schema, "file_path");
    int format = position(schema, "file_format");
    List<CompletableFuture<List<String>>> blooms = new ArrayList<>();
    for (Record row : rows) {
      boolean parquetData = Integer.valueOf(0).equals(row.get(content)) && "PARQUET".equalsIgnoreCase(String.valueOf(row.get(format)));
      String location = (String) row.get(path);
      blooms.add(parquetData ? CompletableFuture.supplyAsync(() -> BloomColumns.of(table, location), handle.workers())
          : CompletableFuture.completedFuture(List.of()));
    }
    List<Record> result = new ArrayList<>(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Record row = rows.get(i);
      GenericRecord copy = GenericRecord.create(schema);
      for (int c = 0; c < row.size(); c++) {
        copy.set(c, row.get(c));
      }
      try {
        copy.set(row.size(), blooms.get(i).join());
      } catch (java.util.concurrent.CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
      result.add(copy);
    }
    return result;
  }

  private static int position(Schema schema, String column) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalStateException("Cannot find metadata column: " + column);
  }
}
